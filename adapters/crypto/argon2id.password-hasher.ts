import { hash as argon2Hash, verify as argon2Verify } from '@node-rs/argon2';

import type { PasswordHasher } from '../../core/identity/password-hasher';
import { ScryptPasswordHasher } from './scrypt.password-hasher';

export interface Argon2idParams {
  /** Memory in KiB. */
  memoryCost: number;
  timeCost: number;
  parallelism: number;
}

/** OWASP Password Storage Cheat Sheet, first Argon2id option: m=19 MiB, t=2, p=1. */
export const OWASP_ARGON2ID: Argon2idParams = { memoryCost: 19_456, timeCost: 2, parallelism: 1 };

/** `Algorithm.Argon2id` of @node-rs/argon2 (a const enum, which isolated modules cannot import). */
const ARGON2ID = 2;
const PHC = /^\$argon2id\$v=19\$m=(\d+),t=(\d+),p=(\d+)\$[A-Za-z0-9+/]+\$[A-Za-z0-9+/]+$/;

/**
 * Argon2id (PHC string format) for new hashes. Hashes written by the earlier scrypt hasher still verify;
 * `needsRehash` tells the sign-in to replace them (and Argon2id hashes with weaker parameters) after the next
 * successful login.
 */
export class Argon2idPasswordHasher implements PasswordHasher {
  readonly id = 'argon2id';
  private readonly legacy = new ScryptPasswordHasher();

  constructor(private readonly params: Argon2idParams = OWASP_ARGON2ID) {}

  hash(password: string): Promise<string> {
    return argon2Hash(password.normalize('NFKC'), { ...this.params, algorithm: ARGON2ID });
  }

  async verify(password: string, hash: string): Promise<boolean> {
    if (hash.startsWith('scrypt$')) return this.legacy.verify(password, hash);
    if (!PHC.test(hash)) return false;
    try {
      return await argon2Verify(hash, password.normalize('NFKC'));
    } catch {
      return false;
    }
  }

  needsRehash(hash: string): boolean {
    const m = PHC.exec(hash);
    if (!m) return true;
    const [memoryCost, timeCost, parallelism] = m.slice(1).map(Number);
    const p = this.params;
    return memoryCost < p.memoryCost || timeCost < p.timeCost || parallelism !== p.parallelism;
  }
}
