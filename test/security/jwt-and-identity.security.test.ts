import { createHmac, randomBytes } from 'node:crypto';

import { EMPTY_BODY_DIGEST, sha256Hex, signIdentity } from '../../core/identity/gateway-signature';
import type { ForwardedIdentity } from '../../core/identity/token-claims';
import { claimsOf, HttpClient, rawRequest } from '../support/http';
import { BOOT_TIMEOUT_MS, startTestPlatform, TEST_INTERNAL_SECRET, TEST_JWT_SECRET, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser } from '../support/users';

let p: TestPlatform;
let alice: TestUser;
let bob: TestUser;
beforeAll(async () => {
  p = await startTestPlatform();
  alice = await registerUser(p.http, { label: 'alice' });
  bob = await registerUser(p.http, { label: 'bob' });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
function forge(header: Record<string, unknown>, payload: unknown, secret: string | null, hash: 'sha256' | 'sha512' = 'sha256') {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${secret === null ? '' : createHmac(hash, secret).update(input).digest('base64url')}`;
}

describe('forged and unusable tokens get 401 Authentication Failed at the gateway', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const HS256 = { alg: 'HS256', typ: 'JWT' };
  const cases: [string, () => string][] = [
    ['alg none, unsigned', () => forge({ alg: 'none', typ: 'JWT' }, claimsOf(alice.accessToken), null)],
    ['alg none with a signature', () => forge({ alg: 'none', typ: 'JWT' }, claimsOf(alice.accessToken), TEST_JWT_SECRET)],
    ['alg HS512 with the real secret', () => forge({ alg: 'HS512', typ: 'JWT' }, claimsOf(alice.accessToken), TEST_JWT_SECRET, 'sha512')],
    ['HS256 signed with another key', () => forge(HS256, claimsOf(alice.accessToken), 'some-other-secret-that-is-long-enough')],
    ['an expired token', () => forge(HS256, { ...claimsOf(alice.accessToken), iat: now() - 90_000, exp: now() - 10 }, TEST_JWT_SECRET)],
    ['a refresh token as the access token', () => alice.refreshToken],
    [
      'a tampered payload (superadmin)',
      () => {
        const [h, , s] = alice.accessToken.split('.');
        return `${h}.${b64({ ...claimsOf(alice.accessToken), platformRole: 'superadmin' })}.${s}`;
      },
    ],
    ['a truncated token', () => alice.accessToken.slice(0, -3)],
  ];

  it.each(cases)('%s', async (_label, make) => {
    const token = make();
    for (const [method, path] of [
      ['GET', '/api/auth/me'],
      ['GET', `/api/organizations/${alice.orgId}/members`],
      ['POST', '/api/api-keys'],
    ] as const) {
      const r = await p.http.request(method, path, { token, body: method === 'POST' ? { name: 'x', scopes: [] } : undefined });
      expect({ path, status: r.status, error: r.body?.error }).toEqual({ path, status: 401, error: 'Authentication Failed' });
    }
    const viaCookie = await p.http.get('/api/auth/me', { headers: { cookie: `access_token=${token}` } });
    expect(viaCookie.status).toBe(401);
  });

  it('control: a token signed the same way with the right key and algorithm is accepted', async () => {
    const token = forge(HS256, { ...claimsOf(alice.accessToken), iat: now(), exp: now() + 600 }, TEST_JWT_SECRET);
    expect((await p.http.get('/api/auth/me', { token })).status).toBe(200);
  });

  it('a token of a user that does not exist is refused', async () => {
    const token = forge(HS256, { ...claimsOf(alice.accessToken), userId: '00000000-0000-4000-8000-000000000000' }, TEST_JWT_SECRET);
    expect((await p.http.get('/api/auth/me', { token })).status).toBe(401);
  });
});

describe('spoofed identity headers are ignored on every lane', () => {
  const spoofed = () => ({
    'user-id': alice.id,
    'organization-id': alice.orgId,
    'user-email': alice.email,
    'x-org-role': 'owner',
    'x-platform-role': 'superadmin',
    'x-api-key-id': '00000000-0000-4000-8000-000000000001',
    'x-api-key-scopes': 'agents:write,contacts:read',
    'x-client-ip': '10.0.0.1',
    'x-gateway-timestamp': String(Date.now()),
    'x-gateway-signature': 'a'.repeat(64),
  });

  it('open lane: registering with superadmin headers gives a plain user', async () => {
    const r = await p.http.post(
      '/api/auth/register',
      { email: `spoof-${Date.now()}@example.com`, password: 'long enough password' },
      { headers: spoofed() },
    );
    expect(r.status).toBe(201);
    expect(r.body.data.user).toMatchObject({ platformRole: 'user', isSuperAdmin: false });
    expect((await p.http.get('/api/openapi.json', { headers: spoofed() })).status).toBe(200);
  });

  it('JWT lane: the token decides who you are, not the headers', async () => {
    const as = { token: bob.accessToken, headers: spoofed() };
    expect((await p.http.get('/api/auth/me', as)).body.user.id).toBe(bob.id);
    expect((await p.http.get(`/api/organizations/${alice.orgId}/members`, as)).status).toBe(404);
    expect((await p.http.post(`/api/admin/organizations/${bob.orgId}/credits`, { amountUsd: 5 }, as)).status).toBe(403);
    expect((await p.http.get('/api/billing/wallet', as)).body.wallet.organizationId).toBe(bob.orgId);
    // Without a token the spoofed headers do not sign anyone in.
    expect((await p.http.get('/api/auth/me', { headers: spoofed() })).status).toBe(401);
  });

  it('API-key lane: the key decides the organization and the scopes', async () => {
    const created = await p.http.post('/api/api-keys', { name: 'narrow', scopes: ['contacts:read'] }, { token: bob.accessToken });
    const me = await p.http.get('/v1/me', { token: created.body.key, headers: spoofed() });
    expect(me.status).toBe(200);
    expect(me.body).toEqual({ organizationId: bob.orgId, keyId: created.body.apiKey.id, scopes: ['contacts:read'] });
    expect((await p.http.get('/v1/me', { headers: spoofed() })).status).toBe(401);
  });

  it('public lane: spoofed headers without a token are not an identity', async () => {
    // The request reaches the backend as an anonymous visitor: an unknown agent is simply not found.
    const r = await p.http.get('/api/public/agents/no-such-agent', { headers: spoofed() });
    expect(r.status).toBe(404);
    // A bearer token on the public lane is optional, but a present one must be valid (spec 5.1.5).
    const forged = await p.http.get('/api/public/agents/no-such-agent', { token: alice.refreshToken, headers: spoofed() });
    expect(forged.status).toBe(401);
    expect(forged.body.error).toBe('Authentication Failed');
  });
});

describe('the backend reached directly', () => {
  const direct = () => new HttpClient(p.apiUrl);
  const identity = (over: Partial<ForwardedIdentity> = {}): ForwardedIdentity => ({
    userId: alice.id,
    organizationId: alice.orgId,
    email: alice.email,
    platformRole: 'user',
    orgRole: 'owner',
    apiKeyId: null,
    apiKeyScopes: [],
    clientIp: '127.0.0.1',
    ...over,
  });

  it('answers /health and 401 to everything else, forged headers or not', async () => {
    expect((await direct().get('/health')).status).toBe(200);
    const forged = { 'user-id': alice.id, 'organization-id': alice.orgId, 'x-org-role': 'owner', 'x-platform-role': 'superadmin' };
    for (const [method, path] of [
      ['GET', '/api/auth/me'],
      ['POST', '/api/auth/register'],
      ['POST', '/api/auth/login'],
      ['GET', '/api/openapi.json'],
      ['GET', '/api/docs'],
      ['GET', '/v1/me'],
      ['GET', `/api/organizations/${alice.orgId}/members`],
      ['GET', '/no/such/route'],
    ] as const) {
      for (const headers of [{}, forged, { ...forged, 'x-gateway-timestamp': String(Date.now()), 'x-gateway-signature': 'f'.repeat(64) }]) {
        const r = await direct().request(method, path, { headers, token: alice.accessToken, body: method === 'POST' ? {} : undefined });
        expect({ path, status: r.status }).toEqual({ path, status: 401 });
      }
    }
  });

  const signed = (method: string, path: string, at = Date.now(), over: { secret?: string; body?: string; id?: ForwardedIdentity } = {}) =>
    signIdentity(over.secret ?? TEST_INTERNAL_SECRET, over.id ?? identity(), {
      method,
      url: path,
      bodyDigest: over.body === undefined ? EMPTY_BODY_DIGEST : sha256Hex(over.body),
      nowMs: at,
      nonce: randomBytes(16).toString('hex'),
    });

  it('refuses stale, future, tampered, replayed-elsewhere and wrong-key signatures; accepts a fresh one', async () => {
    const path = '/api/auth/me';
    expect((await direct().get(path, { headers: signed('GET', path) })).status).toBe(200); // control
    expect((await direct().get(path, { headers: signed('GET', path, Date.now() - 60_000) })).status).toBe(401);
    // the window is narrow: 60 s ahead and 15 s old were accepted before
    expect((await direct().get(path, { headers: signed('GET', path, Date.now() + 60_000) })).status).toBe(401);
    expect((await direct().get(path, { headers: signed('GET', path, Date.now() - 15_000) })).status).toBe(401);
    expect((await direct().get(path, { headers: { ...signed('GET', path), 'user-id': bob.id } })).status).toBe(401);
    expect((await direct().get(path, { headers: { ...signed('GET', path), 'x-platform-role': 'superadmin' } })).status).toBe(401);
    const elsewhere = `/api/organizations/${alice.orgId}/members`;
    expect((await direct().get(elsewhere, { headers: signed('GET', path) })).status).toBe(401);
    expect((await direct().post(path, {}, { headers: signed('GET', path) })).status).toBe(401);
    const wrongKey = signed('GET', path, Date.now(), { secret: 'not-the-internal-secret-at-all-0123456789' });
    expect((await direct().get(path, { headers: wrongKey })).status).toBe(401);
  });

  it('accepts each signature once: captured headers replayed get 401', async () => {
    const path = '/api/auth/me';
    const headers = signed('GET', path);
    expect((await direct().get(path, { headers })).status).toBe(200);
    const replay = await direct().get(path, { headers });
    expect(replay.status).toBe(401);
    expect(replay.body).toEqual({
      error: 'Authentication Failed',
      message: 'This signed request was already used',
      code: 'AUTHENTICATION_FAILED',
    });
  });

  it('binds the body: captured headers with another body create nothing', async () => {
    const path = '/api/knowledge/kb';
    const body = JSON.stringify({ name: 'signed body' });
    const headers = signed('POST', path, Date.now(), { body });
    const swapped = await direct().request('POST', path, { headers, body: JSON.stringify({ name: 'attacker body' }) });
    expect(swapped.status).toBe(401);
    expect(swapped.body.message).toBe('The request body does not match its signature');
    const ok = await direct().request('POST', path, { headers: signed('POST', path, Date.now(), { body }), body });
    expect(ok.status).toBe(201);
    expect(ok.body.knowledgeBase.name).toBe('signed body');
    const list = await p.http.get('/api/knowledge/kb', { token: alice.accessToken });
    expect(list.body.knowledgeBases.map((k: { name: string }) => k.name)).not.toContain('attacker body');
  });
});

describe('paths with dot segments are refused at the gateway with 400', () => {
  it.each([
    '/api/../health',
    '/api/auth/../auth/me',
    '/api/./auth/me',
    '/api/auth/me/..',
    '/api/auth/%2e%2e/auth/me',
    '/api/auth/%2E%2E/auth/me',
    '/api/%252e%252e/v1/me',
    '/v1/..%2fapi/auth/me',
    '/api\\..\\v1/me',
    '/api/auth/.%2e/me',
  ])('%s', async (path) => {
    const r = await rawRequest(p.gatewayUrl, 'GET', path, { authorization: `Bearer ${alice.accessToken}` });
    expect(r.status).toBe(400);
    expect(typeof r.body?.error).toBe('string');
  });
});

describe('role checks', () => {
  it('a viewer cannot perform owner actions (403)', async () => {
    const owner = await registerUser(p.http, { label: 'v-owner' });
    const viewer = await registerUser(p.http, { label: 'v-viewer' });
    const member = await registerUser(p.http, { label: 'v-member' });
    await joinOrganization(p.http, owner, owner.orgId, member, 'member');
    await joinOrganization(p.http, owner, owner.orgId, viewer, 'viewer');
    const t = { token: viewer.accessToken, headers: { 'x-org-role': 'owner' } };
    expect((await p.http.post(`/api/organizations/${owner.orgId}/invitations`, { email: 'x@example.com', role: 'viewer' }, t)).status).toBe(
      403,
    );
    expect((await p.http.post('/api/api-keys', { name: 'k', scopes: [] }, t)).status).toBe(403);
    expect((await p.http.get('/api/api-keys', t)).status).toBe(403);
    expect((await p.http.patch(`/api/organizations/${owner.orgId}/members/${member.id}`, { role: 'viewer' }, t)).status).toBe(403);
    expect((await p.http.delete(`/api/organizations/${owner.orgId}/members/${member.id}`, t)).status).toBe(403);
    expect((await p.http.get('/api/audit-logs', t)).status).toBe(403);
    expect((await p.http.post(`/api/admin/organizations/${owner.orgId}/credits`, { amountUsd: 1 }, t)).status).toBe(403);
    // What a viewer may do.
    expect((await p.http.get(`/api/organizations/${owner.orgId}/members`, t)).status).toBe(200);
  });
});

describe('suspended accounts', () => {
  it('cannot log in, refresh or make requests; reactivation restores access', async () => {
    const u = await registerUser(p.http, { label: 'suspended' });
    const users = p.store.repos.users;
    await users.update(u.id, { status: 'suspended' }, new Date().toISOString());

    const login = await p.http.post('/api/auth/login', { email: u.email, password: u.password });
    expect(login.status).toBe(403);
    expect(login.body.error).toBe('Account suspended');
    expect((await p.http.post('/api/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(403);
    expect((await p.http.get('/api/auth/me', { token: u.accessToken })).status).toBe(403);
    expect((await p.http.get('/api/billing/wallet', { token: u.accessToken })).status).toBe(403);
    expect((await p.http.post('/api/auth/switch-org', { organizationId: u.orgId }, { token: u.accessToken })).status).toBe(403);
    // A wrong password tells nothing about the suspension.
    expect((await p.http.post('/api/auth/login', { email: u.email, password: 'wrong password' })).status).toBe(401);

    await users.update(u.id, { status: 'active' }, new Date().toISOString());
    expect((await p.http.get('/api/auth/me', { token: u.accessToken })).status).toBe(200);
    // The refused refresh did not spend the token.
    expect((await p.http.post('/api/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(200);
  });
});
