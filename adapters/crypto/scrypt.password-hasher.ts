import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';

import type { PasswordHasher } from '../../core/identity/password-hasher';

export interface ScryptParams {
  /** CPU/memory cost (power of two). 2^15 with r=8 uses 32 MiB per hash. */
  N: number;
  r: number;
  p: number;
}

const derive = (password: string, salt: Buffer, keylen: number, p: ScryptParams) =>
  new Promise<Buffer>((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, keylen, { N: p.N, r: p.r, p: p.p, maxmem: 256 * p.N * p.r }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  );

/** Memory-hard password hashing; the parameters travel inside the hash so they can be raised later. */
export class ScryptPasswordHasher implements PasswordHasher {
  readonly id = 'scrypt';
  constructor(private readonly params: ScryptParams = { N: 2 ** 15, r: 8, p: 1 }) {}

  async hash(password: string) {
    const salt = randomBytes(16);
    const key = await derive(password, salt, 32, this.params);
    const { N, r, p } = this.params;
    return `scrypt$${N}$${r}$${p}$${salt.toString('base64url')}$${key.toString('base64url')}`;
  }

  async verify(password: string, hash: string) {
    const [scheme, N, r, p, salt, key] = hash.split('$');
    if (scheme !== 'scrypt' || !key) return false;
    const expected = Buffer.from(key, 'base64url');
    const actual = await derive(password, Buffer.from(salt, 'base64url'), expected.length, { N: Number(N), r: Number(r), p: Number(p) });
    return timingSafeEqual(actual, expected);
  }
}
