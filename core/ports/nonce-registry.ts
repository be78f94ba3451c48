/**
 * Remembers one-time values (the gateway signature's nonce) so that each is accepted once: shared by every
 * api replica when backed by Redis.
 */
export interface NonceRegistry {
  readonly id: string;
  /** True the first time `nonce` is claimed within `ttlMs`; false for a replay. */
  claim(nonce: string, ttlMs: number): Promise<boolean>;
  close(): Promise<void>;
}
export const NONCE_REGISTRY = Symbol.for('NonceRegistry');
