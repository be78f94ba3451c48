import { createHmac, timingSafeEqual } from 'node:crypto';

/** Spec 5.3: `X-Service-Signature: sha256=<hex>`, HMAC-SHA256 over the raw request body with the platform webhook secret. */
export function signWebhookBody(secret: string, rawBody: string | Buffer): string {
  return `sha256=${createHmac('sha256', secret).update(rawBody).digest('hex')}`;
}

/** Receiver side (and tests): checks the header against the raw bytes in constant time. */
export function verifyWebhookSignature(secret: string, rawBody: string | Buffer, header: string | null | undefined): boolean {
  if (typeof header !== 'string') return false;
  const expected = Buffer.from(signWebhookBody(secret, rawBody));
  const given = Buffer.from(header.trim());
  return given.length === expected.length && timingSafeEqual(given, expected);
}
