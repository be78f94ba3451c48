import type { IncomingHttpHeaders } from 'node:http';

import type { ForwardedIdentity } from '../../core/identity/token-claims';
import { anonymousIdentity, IDENTITY_HEADERS, signIdentity, verifyIdentity } from './identity-signature';

const SECRET = 'internal-secret';
const NOW = 1_750_000_000_000;
const identity: ForwardedIdentity = {
  userId: 'u-1',
  organizationId: 'o-1',
  email: 'ada@example.com',
  platformRole: 'superadmin',
  orgRole: 'owner',
  apiKeyId: null,
  apiKeyScopes: [],
  clientIp: '203.0.113.7',
};
const keyIdentity: ForwardedIdentity = {
  ...anonymousIdentity('10.0.0.1'),
  organizationId: 'o-1',
  apiKeyId: 'k-1',
  apiKeyScopes: ['agents:write', 'contacts:read'],
};

const asIncoming = (h: Record<string, string>): IncomingHttpHeaders => ({ ...h, host: 'backend', 'content-type': 'application/json' });

describe('identity signature', () => {
  it('lists every forwarded header, lower-case', () => {
    expect(IDENTITY_HEADERS).toEqual([
      'user-id',
      'organization-id',
      'user-email',
      'x-platform-role',
      'x-org-role',
      'x-api-key-id',
      'x-api-key-scopes',
      'x-client-ip',
      'x-gateway-timestamp',
      'x-gateway-signature',
    ]);
  });

  it.each([
    ['a user', identity],
    ['an API key', keyIdentity],
    ['an anonymous caller', anonymousIdentity('::1')],
  ])('round-trips %s', (_label, id) => {
    const headers = signIdentity(SECRET, id, 'post', '/api/bots?x=1', NOW);
    expect(Object.keys(headers).sort()).toEqual([...IDENTITY_HEADERS].sort());
    expect(headers['x-gateway-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(headers['x-gateway-timestamp']).toBe(String(NOW));
    expect(verifyIdentity(SECRET, asIncoming(headers), 'POST', '/api/bots?x=1', NOW + 1000)).toEqual(id);
  });

  it('writes the scopes comma-separated', () => {
    expect(signIdentity(SECRET, keyIdentity, 'GET', '/v1/x', NOW)['x-api-key-scopes']).toBe('agents:write,contacts:read');
  });

  it.each(IDENTITY_HEADERS.filter((h) => h !== 'x-gateway-timestamp' && h !== 'x-gateway-signature'))(
    'returns null when %s is tampered with',
    (name) => {
      const headers = signIdentity(SECRET, identity, 'GET', '/api/bots', NOW);
      expect(verifyIdentity(SECRET, asIncoming({ ...headers, [name]: 'tampered' }), 'GET', '/api/bots', NOW)).toBeNull();
    },
  );

  it('returns null when an identity header is dropped or a value is moved to another header', () => {
    const headers = signIdentity(SECRET, identity, 'GET', '/api/bots', NOW);
    const { 'user-id': _dropped, ...rest } = headers;
    expect(verifyIdentity(SECRET, asIncoming(rest), 'GET', '/api/bots', NOW)).toBeNull();
    const swapped = { ...headers, 'user-id': headers['organization-id']!, 'organization-id': headers['user-id']! };
    expect(verifyIdentity(SECRET, asIncoming(swapped), 'GET', '/api/bots', NOW)).toBeNull();
  });

  it('binds the signature to the method and the path with its query', () => {
    const headers = asIncoming(signIdentity(SECRET, identity, 'GET', '/api/bots?limit=5', NOW));
    expect(verifyIdentity(SECRET, headers, 'DELETE', '/api/bots?limit=5', NOW)).toBeNull();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots?limit=6', NOW)).toBeNull();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/agents?limit=5', NOW)).toBeNull();
  });

  it('returns null for a stale or future timestamp, and honours maxSkewMs', () => {
    const headers = asIncoming(signIdentity(SECRET, identity, 'GET', '/api/bots', NOW));
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots', NOW + 60_000)).not.toBeNull();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots', NOW + 60_001)).toBeNull();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots', NOW - 60_001)).toBeNull();
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots', NOW + 5_000, 1_000)).toBeNull();
    const restamped = { ...headers, 'x-gateway-timestamp': String(NOW + 10) };
    expect(verifyIdentity(SECRET, restamped, 'GET', '/api/bots', NOW)).toBeNull();
  });

  it('returns null without a signature, with another secret, or with malformed values', () => {
    const signed = signIdentity(SECRET, identity, 'GET', '/api/bots', NOW);
    const { 'x-gateway-signature': _sig, ...unsigned } = signed;
    expect(verifyIdentity(SECRET, asIncoming(unsigned), 'GET', '/api/bots', NOW)).toBeNull();
    expect(verifyIdentity(SECRET, asIncoming({ 'user-id': 'u-1' }), 'GET', '/api/bots', NOW)).toBeNull();
    expect(verifyIdentity('other-secret', asIncoming(signed), 'GET', '/api/bots', NOW)).toBeNull();
    expect(
      verifyIdentity(
        SECRET,
        asIncoming({ ...signed, 'x-gateway-signature': signed['x-gateway-signature']!.toUpperCase() }),
        'GET',
        '/api/bots',
        NOW,
      ),
    ).toBeNull();
    expect(verifyIdentity(SECRET, asIncoming({ ...signed, 'x-gateway-timestamp': 'abc' }), 'GET', '/api/bots', NOW)).toBeNull();
    expect(
      verifyIdentity(SECRET, { ...asIncoming(signed), 'user-id': ['a', 'b'] } as IncomingHttpHeaders, 'GET', '/api/bots', NOW),
    ).toBeNull();
  });

  it('refuses a signed role outside the known values', () => {
    const bogus = { ...identity, orgRole: 'emperor' } as unknown as ForwardedIdentity;
    const headers = asIncoming(signIdentity(SECRET, bogus, 'GET', '/api/bots', NOW));
    expect(verifyIdentity(SECRET, headers, 'GET', '/api/bots', NOW)).toBeNull();
  });

  it('refuses to sign values that cannot travel unchanged as header values', () => {
    for (const email of ['a\r\nuser-id: evil', 'ünï@例え.jp', ' padded@example.com']) {
      expect(() => signIdentity(SECRET, { ...identity, email }, 'GET', '/', NOW)).toThrow();
    }
    expect(() => signIdentity(SECRET, { ...keyIdentity, apiKeyScopes: ['a,b'] }, 'GET', '/', NOW)).toThrow();
  });
});
