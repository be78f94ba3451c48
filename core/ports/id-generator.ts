export interface IdGenerator {
  /** A new UUID. */
  uuid(): string;
  /** Random URL-safe secret of the given byte length (API keys, invitation tokens, access tokens). */
  secret(bytes?: number): string;
}
export const ID_GENERATOR = Symbol.for('IdGenerator');
