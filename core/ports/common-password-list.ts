/** The most common (breached, guessable) passwords: a password on it is refused at sign-up and change. */
export interface CommonPasswordList {
  readonly id: string;
  /** Case-insensitive membership. */
  includes(password: string): boolean;
}
export const COMMON_PASSWORD_LIST = Symbol.for('CommonPasswordList');
