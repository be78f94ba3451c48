export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(password: string, hash: string): Promise<boolean>;
  /** True when a hash that just verified should be replaced by a fresh one (older algorithm or weaker cost). */
  needsRehash?(hash: string): boolean;
}
export const PASSWORD_HASHER = Symbol.for('PasswordHasher');
