import { createHmac, timingSafeEqual } from 'node:crypto';

/** Constant-time check of a `sha256=<hex>` HMAC-SHA256 signature over the raw bytes. */
export function validHmacSha256(header: string | undefined, secret: string, raw: Buffer): boolean {
  if (!header || !secret) return false;
  const match = /^sha256=([0-9a-f]{64})$/i.exec(header.trim());
  if (!match) return false;
  const expected = createHmac('sha256', secret).update(raw).digest();
  const given = Buffer.from(match[1], 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/** Constant-time string equality (verification tokens). */
export function sameSecret(given: string | undefined, expected: string | undefined): boolean {
  if (!given || !expected) return false;
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}
