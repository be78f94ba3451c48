/**
 * Context tokens (spec 4.4 `POST /api/bots/:id/context-token`): a server-side caller puts sensitive variables
 * (an account number, a customer tier) in a token it hands to a browser; the browser passes it as
 * `context_token` when it creates a conversation, and the variables become the conversation's sensitive
 * variables. The payload is encrypted (AES-256-GCM), so the browser cannot read it, and the whole token is
 * signed (HMAC-SHA256), so it cannot be altered; it is bound to one agent and organization and expires.
 *
 *   ctx1.<base64url(iv | ciphertext | gcm tag)>.<base64url(hmac-sha256 of "ctx1.<body>")>
 */
import { createCipheriv, createDecipheriv, createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

import { DomainError } from '../shared/errors';
import type { VariableValues } from './conversation';

const PREFIX = 'ctx1';

export interface ContextTokenPayload {
  agentId: string;
  organizationId: string;
  variables: VariableValues;
  /** Seconds since the epoch. */
  iat: number;
  exp: number;
}

const key = (secret: string, purpose: string) => createHmac('sha256', secret).update(`agent-platform/context-token/${purpose}`).digest();
const mac = (secret: string, text: string) => createHmac('sha256', key(secret, 'mac')).update(text).digest();

export function signContextToken(secret: string, payload: ContextTokenPayload): string {
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key(secret, 'enc'), iv);
  const ciphertext = Buffer.concat([cipher.update(JSON.stringify(payload), 'utf8'), cipher.final()]);
  const body = Buffer.concat([iv, ciphertext, cipher.getAuthTag()]).toString('base64url');
  return `${PREFIX}.${body}.${mac(secret, `${PREFIX}.${body}`).toString('base64url')}`;
}

const tampered = () =>
  new DomainError('VALIDATION', 'context_token is invalid: it was altered or not issued by this platform', [
    { field: 'context_token', message: 'invalid signature' },
  ]);

/** The payload of a genuine, unexpired token for this agent; VALIDATION (400) otherwise. */
export function verifyContextToken(
  secret: string,
  token: string,
  expect: { agentId: string; organizationId: string; nowSeconds: number },
): ContextTokenPayload {
  const parts = typeof token === 'string' ? token.split('.') : [];
  if (parts.length !== 3 || parts[0] !== PREFIX) throw tampered();
  const given = Buffer.from(parts[2], 'base64url');
  const wanted = mac(secret, `${PREFIX}.${parts[1]}`);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw tampered();
  let payload: ContextTokenPayload;
  try {
    const raw = Buffer.from(parts[1], 'base64url');
    const decipher = createDecipheriv('aes-256-gcm', key(secret, 'enc'), raw.subarray(0, 12));
    decipher.setAuthTag(raw.subarray(raw.length - 16));
    payload = JSON.parse(
      Buffer.concat([decipher.update(raw.subarray(12, raw.length - 16)), decipher.final()]).toString('utf8'),
    ) as ContextTokenPayload;
  } catch {
    throw tampered();
  }
  if (payload.agentId !== expect.agentId || payload.organizationId !== expect.organizationId) {
    throw new DomainError('VALIDATION', 'context_token was issued for another agent', [{ field: 'context_token', message: 'wrong agent' }]);
  }
  if (!(payload.exp > expect.nowSeconds))
    throw new DomainError('VALIDATION', 'context_token has expired; request a new one', [{ field: 'context_token', message: 'expired' }]);
  return payload;
}
