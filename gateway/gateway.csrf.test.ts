import { verifyIdentity } from '../core/identity/gateway-signature';
import { call } from './testing/fake-upstream';
import { type GatewayFixture, INTERNAL_SECRET, startGatewayFixture, USER_ID } from './testing/gateway-fixture';

let fx: GatewayFixture;
beforeAll(async () => {
  fx = await startGatewayFixture({ allowedOrigins: ['https://app.example.com'] });
});
afterAll(() => fx.close());

const cookie = () => `access_token=${fx.accessToken}`;
const post = (path: string, headers: Record<string, string>) => call(fx.port, { method: 'POST', path, headers, body: '{}' });

describe('cookie-authenticated requests and origins (CSRF)', () => {
  it('refuses a cross-site unsafe request on the JWT lane before it reaches the backend', async () => {
    const before = fx.upstream.received.length;
    const variants: Record<string, string>[] = [{ origin: 'https://evil.example' }, { referer: 'https://evil.example/x' }, {}];
    for (const headers of variants) {
      const r = await post('/api/bots/x/submit-review', { cookie: cookie(), 'content-type': 'text/plain', ...headers });
      expect(r.status).toBe(403);
      expect(r.json).toEqual({ error: 'Forbidden', message: expect.any(String), code: 'FORBIDDEN' });
      expect(r.headers['x-content-type-options']).toBe('nosniff');
    }
    expect(fx.upstream.received.length).toBe(before);
  });

  it('lets the allowed and the gateway’s own origins through, and any origin with a bearer token', async () => {
    expect((await post('/api/bots', { cookie: cookie(), origin: 'https://app.example.com' })).status).toBe(200);
    expect((await post('/api/bots', { cookie: cookie(), origin: `http://127.0.0.1:${fx.port}` })).status).toBe(200);
    expect((await post('/api/bots', { authorization: `Bearer ${fx.accessToken}`, origin: 'https://evil.example' })).status).toBe(200);
    expect((await call(fx.port, { path: '/api/bots', headers: { cookie: cookie(), origin: 'https://evil.example' } })).status).toBe(200);
  });

  it('on the public lane, a cross-site cookie is not an identity (the visitor stays anonymous)', async () => {
    const r = await post('/api/public/agents/helper/chat', {
      cookie: cookie(),
      origin: 'https://evil.example',
      'content-type': 'application/json',
    });
    expect(r.status).toBe(200);
    const { headers, method, url } = r.json;
    expect(verifyIdentity(INTERNAL_SECRET, headers, method, url, fx.clock.ms)?.identity.userId).toBeNull();
    const same = await post('/api/public/agents/helper/chat', { cookie: cookie(), origin: 'https://app.example.com' });
    expect(verifyIdentity(INTERNAL_SECRET, same.json.headers, same.json.method, same.json.url, fx.clock.ms)?.identity.userId).toBe(USER_ID);
  });
});
