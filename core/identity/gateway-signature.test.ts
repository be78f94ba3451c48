import type { IncomingHttpHeaders } from 'node:http';

import {
  anonymousIdentity,
  BODY_SIGNATURE_TRAILER,
  DIGEST_IN_TRAILER,
  EMPTY_BODY_DIGEST,
  IDENTITY_HEADERS,
  sha256Hex,
  signBodyTrailer,
  signIdentity,
  type SignRequest,
  verifyBodyTrailer,
  verifyIdentity,
} from './gateway-signature';
import type { ForwardedIdentity } from './token-claims';

const SECRET = 'internal-secret';
const NOW = 1_750_000_000_000;
const NONCE = '0123456789abcdef0123456789abcdef';
const identity: ForwardedIdentity = {
  userId: 'u-1',
  organizationId: 'o-1',
  email: 'ada@example.com',
  platformRole: 'superadmin',
  orgRole: 'owner',
  apiKeyId: null,
  apiKeyScopes: [],
  clientIp: '203.0.113.7',
  tokenVersion: 3,
};
const keyIdentity: ForwardedIdentity = {
  ...anonymousIdentity('10.0.0.1'),
  organizationId: 'o-1',
  apiKeyId: 'k-1',
  apiKeyScopes: ['agents:write', 'contacts:read'],
};

const req = (over: Partial<SignRequest> = {}): SignRequest => ({
  method: 'GET',
  url: '/api/bots',
  bodyDigest: EMPTY_BODY_DIGEST,
  nowMs: NOW,
  nonce: NONCE,
  ...over,
});
const asIncoming = (h: Record<string, string>): IncomingHttpHeaders => ({ ...h, host: 'backend', 'content-type': 'application/json' });
const sign = (over: Partial<SignRequest> = {}, id: ForwardedIdentity = identity) => asIncoming(signIdentity(SECRET, id, req(over)));

describe('gateway signature (v2)', () => {
  it('lists every header the gateway owns, lower-case', () => {
    expect(IDENTITY_HEADERS).toEqual([
      'user-id',
      'organization-id',
      'user-email',
      'x-platform-role',
      'x-org-role',
      'x-api-key-id',
      'x-api-key-scopes',
      'x-client-ip',
      'x-token-version',
      'x-gateway-timestamp',
      'x-gateway-nonce',
      'x-gateway-body-sha256',
      'x-gateway-signature',
      'x-gateway-body-signature',
    ]);
  });

  it.each([
    ['a user', identity],
    ['an API key', keyIdentity],
    ['an anonymous caller', anonymousIdentity('::1')],
  ])('round-trips %s with the nonce and body digest', (_label, id) => {
    const digest = sha256Hex('{"name":"kb"}');
    const headers = signIdentity(SECRET, id, req({ method: 'post', url: '/api/bots?x=1', bodyDigest: digest }));
    expect(Object.keys(headers).sort()).toEqual(IDENTITY_HEADERS.filter((h) => h !== BODY_SIGNATURE_TRAILER).sort());
    expect(headers['x-gateway-signature']).toMatch(/^[0-9a-f]{64}$/);
    const v = verifyIdentity(SECRET, asIncoming(headers), 'POST', '/api/bots?x=1', NOW + 1000);
    expect(v).toEqual({
      identity: { ...id, tokenVersion: id.tokenVersion ?? null },
      nonce: NONCE,
      bodyDigest: digest,
      signature: headers['x-gateway-signature'],
      timestampMs: NOW,
    });
  });

  it.each(IDENTITY_HEADERS.filter((h) => h !== 'x-gateway-signature' && h !== BODY_SIGNATURE_TRAILER))(
    'returns null when %s is tampered with',
    (name) => {
      const headers = sign();
      const replacement = name === 'x-gateway-nonce' ? 'f'.repeat(32) : name === 'x-gateway-body-sha256' ? sha256Hex('x') : '1';
      expect(verifyIdentity(SECRET, { ...headers, [name]: replacement }, 'GET', '/api/bots', NOW)).toBeNull();
    },
  );

  it('binds the signature to the method, the path with its query, and the body digest', () => {
    const headers = sign({ url: '/api/bots?limit=5' });
    expect(verifyIdentity(SECRET, headers, 'DELETE', '/api/bots?limit=5', NOW)).toBeNull();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots?limit=6', NOW)).toBeNull();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/agents?limit=5', NOW)).toBeNull();
    const other = { ...headers, 'x-gateway-body-sha256': sha256Hex('{"other":true}') };
    expect(verifyIdentity(SECRET, other, 'GET', '/api/bots?limit=5', NOW)).toBeNull();
  });

  it('accepts a signature only inside a narrow window (10 s old, 2 s ahead)', () => {
    const headers = sign();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots', NOW + 10_000)).not.toBeNull();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots', NOW + 10_001)).toBeNull();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots', NOW - 2_000)).not.toBeNull();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots', NOW - 2_001)).toBeNull();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots', NOW + 5_000, { maxAgeMs: 1_000, maxFutureMs: 0 })).toBeNull();
  });

  it('returns null without a signature, nonce or digest, with another secret, or with malformed values', () => {
    const signed = sign();
    for (const name of ['x-gateway-signature', 'x-gateway-nonce', 'x-gateway-body-sha256']) {
      const { [name]: _dropped, ...rest } = signed;
      expect(verifyIdentity(SECRET, rest, 'GET', '/api/bots', NOW)).toBeNull();
    }
    expect(verifyIdentity('other-secret', signed, 'GET', '/api/bots', NOW)).toBeNull();
    const upper = { ...signed, 'x-gateway-signature': String(signed['x-gateway-signature']).toUpperCase() };
    expect(verifyIdentity(SECRET, upper, 'GET', '/api/bots', NOW)).toBeNull();
    expect(verifyIdentity(SECRET, { ...signed, 'x-gateway-timestamp': 'abc' }, 'GET', '/api/bots', NOW)).toBeNull();
    expect(verifyIdentity(SECRET, { ...signed, 'user-id': ['a', 'b'] }, 'GET', '/api/bots', NOW)).toBeNull();
  });

  it('vouches for a streamed body with a trailer bound to the header signature', () => {
    const headers = signIdentity(SECRET, identity, req({ method: 'POST', bodyDigest: DIGEST_IN_TRAILER }));
    const v = verifyIdentity(SECRET, asIncoming(headers), 'POST', '/api/bots', NOW)!;
    expect(v.bodyDigest).toBe(DIGEST_IN_TRAILER);
    const digest = sha256Hex('big body');
    const trailer = signBodyTrailer(SECRET, v.signature, digest);
    expect(verifyBodyTrailer(SECRET, v.signature, digest, trailer)).toBe(true);
    expect(verifyBodyTrailer(SECRET, v.signature, sha256Hex('another body'), trailer)).toBe(false);
    expect(verifyBodyTrailer(SECRET, 'a'.repeat(64), digest, trailer)).toBe(false);
    expect(verifyBodyTrailer(SECRET, v.signature, digest, undefined)).toBe(false);
  });

  it('refuses a signed role or token version outside the known values', () => {
    const bogus = { ...identity, orgRole: 'emperor' } as unknown as ForwardedIdentity;
    expect(verifyIdentity(SECRET, sign({}, bogus), 'GET', '/api/bots', NOW)).toBeNull();
    expect(verifyIdentity(SECRET, sign({}, { ...identity, tokenVersion: -1 }), 'GET', '/api/bots', NOW)).toBeNull();
  });

  it('refuses to sign values that cannot travel unchanged as header values, or a bad nonce', () => {
    for (const email of ['a\r\nuser-id: evil', 'ünï@例え.jp', ' padded@example.com']) {
      expect(() => signIdentity(SECRET, { ...identity, email }, req())).toThrow();
    }
    expect(() => signIdentity(SECRET, { ...keyIdentity, apiKeyScopes: ['a,b'] }, req())).toThrow();
    expect(() => signIdentity(SECRET, identity, req({ nonce: 'short' }))).toThrow();
    expect(() => signIdentity(SECRET, identity, req({ bodyDigest: 'nope' }))).toThrow();
  });
});
