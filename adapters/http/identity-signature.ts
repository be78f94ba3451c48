import { createHmac, timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';

import { isOrgRole, PLATFORM_ROLES, type PlatformRole } from '../../core/identity/roles';
import type { ForwardedIdentity } from '../../core/identity/token-claims';
import { DomainError } from '../../core/shared/errors';

/**
 * Identity the gateway forwards to the backend, signed with the internal secret so that a backend reached
 * without the gateway refuses everything. Shared by the gateway (signIdentity) and the backend (verifyIdentity).
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
  timestamp: 'x-gateway-timestamp',
  signature: 'x-gateway-signature',
} as const;

/** Every header the gateway owns; it strips all of them from every inbound request. */
export const IDENTITY_HEADERS: string[] = Object.values(IdentityHeader);

export const IDENTITY_SIGNATURE_VERSION = 'v1';
export const DEFAULT_MAX_SKEW_MS = 60_000;

/** Printable ASCII without edge spaces: anything else could not travel as a header value unchanged. */
const HEADER_SAFE = /^(?:[\x21-\x7e](?:[\x20-\x7e]*[\x21-\x7e])?)?$/;
const HEX64 = /^[0-9a-f]{64}$/;
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
});

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
  ];
}

/** JSON array: unambiguous whatever the values contain. */
function canonical(timestamp: string, method: string, url: string, values: string[]): string {
  return JSON.stringify([IDENTITY_SIGNATURE_VERSION, timestamp, method.toUpperCase(), url, ...values]);
}

function mac(secret: string, data: string): string {
  return createHmac('sha256', secret).update(data, 'utf8').digest('hex');
}

/** Headers to set on the forwarded request (all of IDENTITY_HEADERS; empty strings for absent values). */
export function signIdentity(
  secret: string,
  identity: ForwardedIdentity,
  method: string,
  url: string,
  nowMs: number,
): Record<string, string> {
  const values = fields(identity);
  for (const v of values) {
    if (!HEADER_SAFE.test(v)) throw new DomainError('VALIDATION', 'Identity value cannot be forwarded as a header');
  }
  if (identity.apiKeyScopes.some((s) => s.includes(',') || s === '')) {
    throw new DomainError('VALIDATION', 'API key scopes must be non-empty and contain no comma');
  }
  const timestamp = String(Math.floor(nowMs));
  const [userId, organizationId, email, platformRole, orgRole, apiKeyId, apiKeyScopes, clientIp] = values as [
    string,
    string,
    string,
    string,
    string,
    string,
    string,
    string,
  ];
  return {
    [IdentityHeader.userId]: userId,
    [IdentityHeader.organizationId]: organizationId,
    [IdentityHeader.email]: email,
    [IdentityHeader.platformRole]: platformRole,
    [IdentityHeader.orgRole]: orgRole,
    [IdentityHeader.apiKeyId]: apiKeyId,
    [IdentityHeader.apiKeyScopes]: apiKeyScopes,
    [IdentityHeader.clientIp]: clientIp,
    [IdentityHeader.timestamp]: timestamp,
    [IdentityHeader.signature]: mac(secret, canonical(timestamp, method, url, values)),
  };
}

function single(headers: IncomingHttpHeaders, name: string): string | null {
  const v = headers[name];
  if (v === undefined) return '';
  return typeof v === 'string' ? v : null; // repeated headers are refused
}

/**
 * The identity the gateway signed, or null when the signature is missing or wrong, the timestamp is outside
 * `maxSkewMs`, or a value is malformed. `url` is the raw request target as received (path and query).
 */
export function verifyIdentity(
  secret: string,
  headers: IncomingHttpHeaders,
  method: string,
  url: string,
  nowMs: number,
  maxSkewMs = DEFAULT_MAX_SKEW_MS,
): ForwardedIdentity | null {
  const signature = single(headers, IdentityHeader.signature);
  const timestamp = single(headers, IdentityHeader.timestamp);
  if (!signature || !timestamp || !HEX64.test(signature) || !DIGITS.test(timestamp)) return null;
  if (Math.abs(nowMs - Number(timestamp)) > maxSkewMs) return null;
  const names = [
    IdentityHeader.userId,
    IdentityHeader.organizationId,
    IdentityHeader.email,
    IdentityHeader.platformRole,
    IdentityHeader.orgRole,
    IdentityHeader.apiKeyId,
    IdentityHeader.apiKeyScopes,
    IdentityHeader.clientIp,
  ];
  const values: string[] = [];
  for (const name of names) {
    const v = single(headers, name);
    if (v === null) return null;
    values.push(v);
  }
  const expected = Buffer.from(mac(secret, canonical(timestamp, method, url, values)), 'latin1');
  if (!timingSafeEqual(expected, Buffer.from(signature, 'latin1'))) return null;
  const [userId, organizationId, email, platformRole, orgRole, apiKeyId, apiKeyScopes, clientIp] = values as [
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
  return {
    userId: userId || null,
    organizationId: organizationId || null,
    email: email || null,
    platformRole: (platformRole || null) as PlatformRole | null,
    orgRole: orgRole && isOrgRole(orgRole) ? orgRole : null,
    apiKeyId: apiKeyId || null,
    apiKeyScopes: apiKeyScopes ? apiKeyScopes.split(',') : [],
    clientIp,
  };
}
