import { verifyIdentity } from '../core/identity/gateway-signature';
import { call, type CallResult } from './testing/fake-upstream';
import {
  accessClaims,
  API_KEY,
  API_KEY_PRINCIPAL,
  type GatewayFixture,
  INTERNAL_SECRET,
  ORG_ID,
  startGatewayFixture,
  USER_ID,
} from './testing/gateway-fixture';

let fx: GatewayFixture;
beforeAll(async () => {
  fx = await startGatewayFixture();
});
afterAll(() => fx.close());

/** The identity the backend would accept from the echoed request. */
function backendIdentity(r: CallResult) {
  const { headers, method, url } = r.json;
  return verifyIdentity(INTERNAL_SECRET, headers, method, url, fx.clock.ms)?.identity ?? null;
}

const anonymous = {
  userId: null,
  organizationId: null,
  email: null,
  platformRole: null,
  orgRole: null,
  apiKeyId: null,
  apiKeyScopes: [],
  tokenVersion: null,
};
const jwtIdentity = {
  userId: USER_ID,
  organizationId: ORG_ID,
  email: 'ada@example.com',
  platformRole: 'user',
  orgRole: 'admin',
  apiKeyId: null,
  apiKeyScopes: [],
  tokenVersion: 0,
};

describe('open lane', () => {
  it.each([
    ['POST', '/api/auth/register'],
    ['POST', '/api/auth/login'],
    ['POST', '/api/auth/refresh'],
    ['GET', '/api/auth/google'],
    ['GET', '/api/auth/google/callback?code=abc&state=xyz'],
    ['GET', '/api/openapi.json'],
    ['GET', '/api/docs'],
    ['GET', '/api/docs/swagger-ui.css'],
    ['GET', '/health'],
    ['GET', '/marketplace/agents'],
    ['GET', '/'],
    ['GET', '/index.html'],
    ['OPTIONS', '/api/bots'],
  ])('%s %s is forwarded with a signed anonymous identity', async (method, path) => {
    const r = await call(fx.port, {
      method,
      path,
      headers: { 'content-type': 'application/json' },
      body: method === 'POST' ? '{}' : undefined,
    });
    expect(r.status).toBe(200);
    expect(r.json.url).toBe(path);
    expect(r.json.headers['x-gateway-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(backendIdentity(r)).toEqual({ ...anonymous, clientIp: '127.0.0.1' });
  });

  it('ignores a bad token on an open route (login does not need one)', async () => {
    const r = await call(fx.port, { method: 'POST', path: '/api/auth/login', headers: { authorization: 'Bearer nope' }, body: '{}' });
    expect(r.status).toBe(200);
    expect(backendIdentity(r)?.userId).toBeNull();
  });

  it('relays the response status, headers and body of the backend', async () => {
    const r = await call(fx.port, { path: '/health' });
    expect(r.headers['x-upstream']).toBe('yes');
    expect(r.headers['content-type']).toBe('application/json');
  });

  it.each([
    ['GET', '/api/auth/login'],
    ['POST', '/api/auth/google'],
    ['GET', '/API/bots'],
    ['GET', '/api%2fbots'],
    ['GET', '//api/bots'],
    ['GET', '/api'],
  ])('%s %s is not open: it needs a token', async (method, path) => {
    const r = await call(fx.port, { method, path });
    expect(r.status).toBe(401);
    expect(fx.upstream.received.find((q) => q.url === path && q.method === method)).toBeUndefined();
  });
});

describe('JWT lane', () => {
  it('forwards the verified identity of a bearer token, with the first organization active', async () => {
    const r = await call(fx.port, { path: '/api/bots?limit=5', headers: { authorization: `Bearer ${fx.accessToken}` } });
    expect(r.status).toBe(200);
    expect(r.json.headers['user-id']).toBe(USER_ID);
    expect(r.json.headers['organization-id']).toBe(ORG_ID);
    expect(r.json.headers['user-email']).toBe('ada@example.com');
    expect(r.json.headers['x-platform-role']).toBe('user');
    expect(r.json.headers['x-org-role']).toBe('admin');
    expect(backendIdentity(r)).toEqual({ ...jwtIdentity, clientIp: '127.0.0.1' });
  });

  it('accepts the access_token cookie as a fallback', async () => {
    const r = await call(fx.port, { path: '/api/bots', headers: { cookie: `theme=dark; access_token=${fx.accessToken}` } });
    expect(r.status).toBe(200);
    expect(backendIdentity(r)?.userId).toBe(USER_ID);
  });

  it('forwards an empty organization-id when the token has no organization', async () => {
    const token = fx.signer.sign(accessClaims({ organizations: [] }, fx.clock.ms));
    const r = await call(fx.port, { path: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(200);
    expect(r.json.headers['organization-id']).toBe('');
    expect(backendIdentity(r)).toMatchObject({ userId: USER_ID, organizationId: null, orgRole: null });
  });

  it.each([
    ['no credentials', {}],
    ['a non-bearer scheme', { authorization: 'Basic dXNlcjpwYXNz' }],
    ['an empty bearer', { authorization: 'Bearer ' }],
  ])('refuses %s with 401 Missing or invalid authorization header', async (_label, headers) => {
    const r = await call(fx.port, { path: '/api/bots', headers });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({
      error: 'Missing or invalid authorization header',
      message: expect.any(String),
      code: 'MISSING_AUTHORIZATION',
    });
    expect(r.headers['www-authenticate']).toBe('Bearer');
  });

  it('refuses a garbage token with 401 Authentication Failed', async () => {
    const r = await call(fx.port, { path: '/api/bots', headers: { authorization: 'Bearer not.a.jwt' } });
    expect(r.status).toBe(401);
    expect(r.json).toEqual({ error: 'Authentication Failed', message: expect.any(String), code: 'AUTHENTICATION_FAILED' });
  });
});

describe('public lane', () => {
  it('forwards an anonymous identity without a token', async () => {
    const r = await call(fx.port, { path: '/api/public/agents/helper' });
    expect(r.status).toBe(200);
    expect(backendIdentity(r)).toEqual({ ...anonymous, clientIp: '127.0.0.1' });
  });

  it('forwards the verified identity of a bearer token', async () => {
    const r = await call(fx.port, { path: '/api/public/agents/helper', headers: { authorization: `Bearer ${fx.accessToken}` } });
    expect(r.status).toBe(200);
    expect(backendIdentity(r)).toEqual({ ...jwtIdentity, clientIp: '127.0.0.1' });
  });

  it('forwards the verified identity of the access_token cookie', async () => {
    const r = await call(fx.port, { path: '/api/public/agents/helper', headers: { cookie: `access_token=${fx.accessToken}` } });
    expect(backendIdentity(r)?.userId).toBe(USER_ID);
  });

  it('refuses a present token that does not verify', async () => {
    const r = await call(fx.port, { path: '/api/public/agents/helper', headers: { authorization: 'Bearer x.y.z' } });
    expect(r.status).toBe(401);
    expect(r.json.error).toBe('Authentication Failed');
    const c = await call(fx.port, { path: '/api/public/agents/helper', headers: { cookie: 'access_token=x.y.z' } });
    expect(c.status).toBe(401);
  });

  it('refuses a malformed Authorization header', async () => {
    const r = await call(fx.port, { path: '/api/public/agents/helper', headers: { authorization: 'Basic abc' } });
    expect(r.status).toBe(401);
    expect(r.json.error).toBe('Missing or invalid authorization header');
  });
});

describe('API-key lane (/v1)', () => {
  it('forwards the key organization, id and scopes, no user, and not the raw key', async () => {
    const r = await call(fx.port, {
      method: 'POST',
      path: '/v1/agents/from-url',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
      body: '{"url":"https://example.com"}',
    });
    expect(r.status).toBe(200);
    expect(r.json.body).toBe('{"url":"https://example.com"}');
    expect(r.json.headers.authorization).toBeUndefined();
    expect(r.json.headers['organization-id']).toBe(ORG_ID);
    expect(r.json.headers['x-api-key-id']).toBe(API_KEY_PRINCIPAL.keyId);
    expect(r.json.headers['x-api-key-scopes']).toBe('agents:write,contacts:read');
    expect(r.json.headers['user-id']).toBe('');
    expect(backendIdentity(r)).toEqual({
      ...anonymous,
      organizationId: ORG_ID,
      apiKeyId: API_KEY_PRINCIPAL.keyId,
      apiKeyScopes: ['agents:write', 'contacts:read'],
      clientIp: '127.0.0.1',
    });
  });

  it('needs an Authorization header (a cookie does not count)', async () => {
    for (const headers of [{}, { cookie: `access_token=${fx.accessToken}` }, { authorization: API_KEY }]) {
      const r = await call(fx.port, { path: '/v1/contacts/export', headers });
      expect(r.status).toBe(401);
      expect(r.json.error).toBe('Missing or invalid authorization header');
    }
  });

  it('refuses an unknown or revoked key, and a JWT in place of a key', async () => {
    for (const key of ['ak_live_unknown', fx.accessToken]) {
      const r = await call(fx.port, { path: '/v1/contacts/export', headers: { authorization: `Bearer ${key}` } });
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ error: 'Authentication Failed', message: 'Invalid or revoked API key', code: 'AUTHENTICATION_FAILED' });
    }
  });
});
