import { createHash, createHmac, timingSafeEqual } from 'node:crypto';

import { DomainError } from '../shared/errors';
import { isOrgRole, PLATFORM_ROLES, type PlatformRole } from './roles';
import type { ForwardedIdentity } from './token-claims';

/**
 * The gateway → backend protocol. The gateway signs the identity it verified together with the method, the
 * request target, a digest of the body, a timestamp and a one-time nonce (HMAC-SHA256 with the internal
 * secret); the backend accepts a signature only inside a narrow window and only once (nonce registry), so
 * captured headers can neither be replayed nor reused with another body. Shared by gateway/ and the HTTP
 * adapter, hence in core (node:crypto only).
 */
export const IdentityHeader = {
  userId: 'user-id',
  organizationId: 'organization-id',
  email: 'user-email',
  platformRole: 'x-platform-role',
  orgRole: 'x-org-role',
  apiKeyId: 'x-api-key-id',
  apiKeyScopes: 'x-api-key-scopes',
  clientIp: 'x-client-ip',
  tokenVersion: 'x-token-version',
  timestamp: 'x-gateway-timestamp',
  nonce: 'x-gateway-nonce',
  bodyDigest: 'x-gateway-body-sha256',
  signature: 'x-gateway-signature',
} as const;

/** Trailer of a streamed body: HMAC over the header signature and the body's digest, known only at its end. */
export const BODY_SIGNATURE_TRAILER = 'x-gateway-body-signature';
/** Value of the body-digest header when the digest follows in the trailer. */
export const DIGEST_IN_TRAILER = 'trailer';

/** Every header the gateway owns; it strips all of them from every inbound request. */
export const IDENTITY_HEADERS: string[] = [...Object.values(IdentityHeader), BODY_SIGNATURE_TRAILER];

export const IDENTITY_SIGNATURE_VERSION = 'v2';
/** How old a signature may be when its headers reach the backend, and how far ahead a clock may run. */
export const DEFAULT_SIGNATURE_WINDOW = { maxAgeMs: 10_000, maxFutureMs: 2_000 } as const;

export const sha256Hex = (data: Buffer | string): string => createHash('sha256').update(data).digest('hex');
export const EMPTY_BODY_DIGEST = sha256Hex('');

/** Printable ASCII without edge spaces: anything else could not travel as a header value unchanged. */
const HEADER_SAFE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;
const HEX64 = /^[0-9a-f]{64}$/;
const NONCE = /^[0-9a-f]{32}$/;
const DIGITS = /^\d{1,16}$/;

export const anonymousIdentity = (clientIp: string): ForwardedIdentity => ({
  userId: null,
  organizationId: null,
  email: null,
  platformRole: null,
  orgRole: null,
  apiKeyId: null,
  apiKeyScopes: [],
  clientIp,
  tokenVersion: null,
});

const IDENTITY_FIELDS = [
  IdentityHeader.userId,
  IdentityHeader.organizationId,
  IdentityHeader.email,
  IdentityHeader.platformRole,
  IdentityHeader.orgRole,
  IdentityHeader.apiKeyId,
  IdentityHeader.apiKeyScopes,
  IdentityHeader.clientIp,
  IdentityHeader.tokenVersion,
] as const;

function fields(identity: ForwardedIdentity): string[] {
  return [
    identity.userId ?? '',
    identity.organizationId ?? '',
    identity.email ?? '',
    identity.platformRole ?? '',
    identity.orgRole ?? '',
    identity.apiKeyId ?? '',
    identity.apiKeyScopes.join(','),
    identity.clientIp ?? '',
    identity.tokenVersion === null || identity.tokenVersion === undefined ? '' : String(identity.tokenVersion),
  ];
}

interface Signed {
  timestamp: string;
  nonce: string;
  method: string;
  url: string;
  bodyDigest: string;
}

/** JSON array: unambiguous whatever the values contain. */
function canonical(s: Signed, values: string[]): string {
  return JSON.stringify([IDENTITY_SIGNATURE_VERSION, s.timestamp, s.nonce, s.method.toUpperCase(), s.url, s.bodyDigest, ...values]);
}

const mac = (secret: string, data: string): string => createHmac('sha256', secret).update(data, 'utf8').digest('hex');

const safeEqualHex = (a: string, b: string): boolean =>
  a.length === b.length && timingSafeEqual(Buffer.from(a, 'latin1'), Buffer.from(b, 'latin1'));

export interface SignRequest {
  method: string;
  /** The raw request target (path and query) as the backend will receive it. */
  url: string;
  /** sha256 hex of the body (EMPTY_BODY_DIGEST without one), or DIGEST_IN_TRAILER for a streamed body. */
  bodyDigest: string;
  nowMs: number;
  /** 32 hex characters, fresh per request. */
  nonce: string;
}

/**
 * Throws unless every identity value can travel as a header unchanged; returns the values in signing order.
 * The gateway checks this before it answers anything, whichever path (signed headers or in memory) follows.
 */
export function forwardableValues(identity: ForwardedIdentity): string[] {
  const values = fields(identity);
  for (const v of values) {
    if (!HEADER_SAFE.test(v)) throw new DomainError('VALIDATION', 'Identity value cannot be forwarded as a header');
  }
  if (identity.apiKeyScopes.some((s) => s.includes(',') || s === '')) {
    throw new DomainError('VALIDATION', 'API key scopes must be non-empty and contain no comma');
  }
  return values;
}

/** Headers to set on the forwarded request (all of IdentityHeader; empty strings for absent values). */
export function signIdentity(secret: string, identity: ForwardedIdentity, r: SignRequest): Record<string, string> {
  const values = forwardableValues(identity);
  if (!NONCE.test(r.nonce)) throw new DomainError('VALIDATION', 'The nonce must be 32 hex characters');
  if (r.bodyDigest !== DIGEST_IN_TRAILER && !HEX64.test(r.bodyDigest)) throw new DomainError('VALIDATION', 'Bad body digest');
  const signed: Signed = { timestamp: String(Math.floor(r.nowMs)), nonce: r.nonce, method: r.method, url: r.url, bodyDigest: r.bodyDigest };
  const headers: Record<string, string> = {};
  IDENTITY_FIELDS.forEach((name, i) => (headers[name] = values[i]!));
  headers[IdentityHeader.timestamp] = signed.timestamp;
  headers[IdentityHeader.nonce] = signed.nonce;
  headers[IdentityHeader.bodyDigest] = signed.bodyDigest;
  headers[IdentityHeader.signature] = mac(secret, canonical(signed, values));
  return headers;
}

/** The trailer that vouches for a streamed body once its digest is known. */
export function signBodyTrailer(secret: string, headerSignature: string, bodyDigest: string): string {
  return mac(secret, JSON.stringify([`${IDENTITY_SIGNATURE_VERSION}-body`, headerSignature, bodyDigest]));
}

export function verifyBodyTrailer(secret: string, headerSignature: string, bodyDigest: string, trailer: unknown): boolean {
  return typeof trailer === 'string' && HEX64.test(trailer) && safeEqualHex(signBodyTrailer(secret, headerSignature, bodyDigest), trailer);
}

export interface VerifiedRequest {
  identity: ForwardedIdentity;
  nonce: string;
  /** sha256 hex the body must have, or DIGEST_IN_TRAILER. */
  bodyDigest: string;
  signature: string;
  /** Signature time (ms): the nonce must be remembered until the window has passed it. */
  timestampMs: number;
}

type Headers = Record<string, string | string[] | undefined>;

function single(headers: Headers, name: string): string | null {
  const v = headers[name];
  if (v === undefined) return '';
  return typeof v === 'string' ? v : null; // repeated headers are refused
}

/**
 * The request the gateway signed, or null when the signature is missing or wrong, the timestamp is outside
 * the window, or a value is malformed. `url` is the raw request target as received (path and query). The
 * caller still has to claim the nonce (once) and check the body against `bodyDigest`.
 */
export function verifyIdentity(
  secret: string,
  headers: Headers,
  method: string,
  url: string,
  nowMs: number,
  window: { maxAgeMs: number; maxFutureMs: number } = DEFAULT_SIGNATURE_WINDOW,
): VerifiedRequest | null {
  const signature = single(headers, IdentityHeader.signature);
  const timestamp = single(headers, IdentityHeader.timestamp);
  const nonce = single(headers, IdentityHeader.nonce);
  const bodyDigest = single(headers, IdentityHeader.bodyDigest);
  if (!signature || !timestamp || !nonce || !bodyDigest) return null;
  if (!HEX64.test(signature) || !DIGITS.test(timestamp) || !NONCE.test(nonce)) return null;
  if (bodyDigest !== DIGEST_IN_TRAILER && !HEX64.test(bodyDigest)) return null;
  const age = nowMs - Number(timestamp);
  if (age > window.maxAgeMs || -age > window.maxFutureMs) return null;
  const values: string[] = [];
  for (const name of IDENTITY_FIELDS) {
    const v = single(headers, name);
    if (v === null) return null;
    values.push(v);
  }
  if (!safeEqualHex(mac(secret, canonical({ timestamp, nonce, method, url, bodyDigest }, values)), signature)) return null;
  const [userId, organizationId, email, platformRole, orgRole, apiKeyId, apiKeyScopes, clientIp, tokenVersion] = values as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  if (platformRole && !(PLATFORM_ROLES as readonly string[]).includes(platformRole)) return null;
  if (orgRole && !isOrgRole(orgRole)) return null;
  if (tokenVersion && !/^\d{1,9}$/.test(tokenVersion)) return null;
  return {
    identity: {
      userId: userId || null,
      organizationId: organizationId || null,
      email: email || null,
      platformRole: (platformRole || null) as PlatformRole | null,
      orgRole: orgRole && isOrgRole(orgRole) ? orgRole : null,
      apiKeyId: apiKeyId || null,
      apiKeyScopes: apiKeyScopes ? apiKeyScopes.split(',') : [],
      clientIp,
      tokenVersion: tokenVersion ? Number(tokenVersion) : null,
    },
    nonce,
    bodyDigest,
    signature,
    timestampMs: Number(timestamp),
  };
}
