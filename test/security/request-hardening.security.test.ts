import { randomUUID } from 'node:crypto';

import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser, uniqueEmail } from '../support/users';

/** Issue 8 items 6-10: billing roles, CSRF on cookie auth, cookie attributes, bad input as 400, security headers. */
let p: TestPlatform;
let owner: TestUser;
const APP = 'https://app.example.com';
beforeAll(async () => {
  p = await startTestPlatform({ ALLOWED_ORIGINS: APP, JSON_MAX_DEPTH: '32' });
  owner = await registerUser(p.http, { label: 'hard-owner' });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const fetchGateway = (path: string, init: RequestInit) => fetch(`${p.gatewayUrl}${path}`, { redirect: 'manual', ...init });

describe('billing is for owners and admins', () => {
  it('answers 403 to members and viewers, 200 to owners and admins', async () => {
    const roles = ['admin', 'member', 'viewer'] as const;
    for (const role of roles) {
      const u = await joinOrganization(p.http, owner, owner.orgId, await registerUser(p.http, { label: role }), role);
      const r = await p.http.get('/api/billing/wallet', { token: u.accessToken });
      expect({ role, status: r.status }).toEqual({ role, status: role === 'admin' ? 200 : 403 });
      if (r.status === 403) expect(r.body.error).toBe('Forbidden');
    }
    expect((await p.http.get('/api/billing/wallet', { token: owner.accessToken })).status).toBe(200);
  });
});

describe('cookie authentication and CSRF', () => {
  let botId: string;
  beforeAll(async () => {
    const r = await p.http.post('/api/bots', { name: 'CSRF target', knowledgeBaseIds: [], isDraft: true }, { token: owner.accessToken });
    botId = r.body.bot.id;
  });
  const submit = (headers: Record<string, string>) =>
    fetchGateway(`/api/bots/${botId}/submit-review`, { method: 'POST', headers: { 'content-type': 'text/plain', ...headers }, body: '{}' });

  it('sets the access_token cookie HttpOnly, SameSite=Lax, Path=/ (no Secure over plain HTTP)', async () => {
    const r = await fetchGateway('/api/auth/login', {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: owner.email, password: owner.password }),
    });
    const cookie = r.headers.get('set-cookie') ?? '';
    expect(cookie).toMatch(/^access_token=[^;]+;/);
    expect(cookie).toMatch(/; HttpOnly/i);
    expect(cookie).toMatch(/; SameSite=Lax/i);
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).not.toMatch(/; Secure/i);
  });

  it('refuses a cross-site cookie-authenticated state change (the reported attack) and changes nothing', async () => {
    const cookie = `access_token=${owner.accessToken}`;
    for (const origin of ['https://evil.example', 'null']) {
      const r = await submit({ cookie, origin });
      expect(r.status).toBe(403);
      expect(((await r.json()) as { error: string }).error).toBe('Forbidden');
    }
    expect((await submit({ cookie })).status).toBe(403); // no Origin, no Referer
    expect((await submit({ cookie, referer: 'https://evil.example/page' })).status).toBe(403);
    const status = await p.http.get(`/api/bots/${botId}/draft-status`, { token: owner.accessToken });
    expect(status.body.status).toBe('draft');
  });

  it('lets allowed and same origins through, bearer requests from anywhere, and safe methods', async () => {
    const cookie = `access_token=${owner.accessToken}`;
    expect((await fetchGateway(`/api/bots/${botId}`, { headers: { cookie, origin: 'https://evil.example' } })).status).toBe(200);
    const bearer = await submit({ authorization: `Bearer ${owner.accessToken}`, origin: 'https://evil.example' });
    expect(bearer.status).toBe(200);
    await p.http.post(`/api/bots/${botId}/reject`, { feedback: 'again' }, { token: owner.accessToken });
    expect((await submit({ cookie, origin: APP })).status).toBe(200);
    await p.http.post(`/api/bots/${botId}/reject`, { feedback: 'again' }, { token: owner.accessToken });
    expect((await submit({ cookie, origin: p.gatewayUrl })).status).toBe(200);
  });
});

describe('bad input is a 400 with the error body, never a 500', () => {
  const nul = 'a\u0000b';
  const expect400 = (r: { status: number; body: any }) => {
    expect(r.status).toBe(400);
    expect(r.body).toMatchObject({ error: 'Validation Error', message: expect.any(String) });
  };

  it('refuses NUL characters in a login, a registration, a KB name, a search, a chat message, a query string', async () => {
    const token = { token: owner.accessToken };
    expect400(await p.http.post('/api/auth/login', { email: `x${nul}@example.com`, password: 'whatever-pw' }));
    expect400(await p.http.post('/api/auth/login', { email: owner.email, password: nul }));
    expect400(await p.http.post('/api/auth/register', { email: uniqueEmail('nul'), password: `pw-${randomUUID()}`, displayName: nul }));
    expect400(await p.http.post('/api/knowledge/kb', { name: nul }, token));
    const kb = await p.http.post('/api/knowledge/kb', { name: 'Plain' }, token);
    expect400(await p.http.post('/api/knowledge/search', { knowledgeBaseIds: [kb.body.knowledgeBase.id], query: nul }, token));
    const bot = await p.http.post('/api/bots', { name: 'Chatty', knowledgeBaseIds: [], isDraft: true }, token);
    expect400(await p.http.post(`/api/bots/${bot.body.bot.id}/chat`, { message: `hello ${nul}` }, token));
    expect400(await p.http.post(`/api/bots/${bot.body.bot.id}/chat`, { message: 'hi', variables: { [nul]: 1 } }, token));
    // an encoded NUL in the path is refused at the gateway's path check
    const path = await p.http.get(`/api/models/search/${encodeURIComponent(nul)}`, token);
    expect(path.status).toBe(400);
    expect(path.body).toEqual({ error: expect.any(String), message: expect.any(String), code: 'VALIDATION' });
    expect400(await p.http.get(`/api/bots?limit=${encodeURIComponent(`5${nul}`)}`, token));
  });

  it('refuses JSON nested deeper than JSON_MAX_DEPTH (10,000 and 100,000 deep included)', async () => {
    const token = { token: owner.accessToken };
    for (const depth of [33, 10_000, 100_000]) {
      const settings = `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const r = await p.http.post('/api/knowledge/kb', `{"name":"deep","settings":${settings}}`, token);
      expect400(r);
      expect(r.body.message).toMatch(/nests deeper than 32 levels/);
    }
    const ok = await p.http.post('/api/knowledge/kb', { name: 'shallow', settings: { a: { b: { c: 1 } } } }, token);
    expect(ok.status).toBe(201);
  });
});

describe('security headers on every response', () => {
  const expectHeaders = (h: Headers) => {
    expect(h.get('x-content-type-options')).toBe('nosniff');
    expect(h.get('x-frame-options')).toBeTruthy();
    expect(h.get('referrer-policy')).toBe('no-referrer');
    expect(h.get('content-security-policy')).toBeTruthy();
    expect(h.get('x-powered-by')).toBeNull();
  };

  it('on JSON answers, on backend errors and on the gateway’s own errors', async () => {
    expectHeaders((await p.http.get('/api/auth/me', { token: owner.accessToken })).headers); // 200 JSON
    expectHeaders((await p.http.get(`/api/bots/${randomUUID()}`, { token: owner.accessToken })).headers); // backend 404
    expectHeaders((await p.http.get('/api/bots')).headers); // gateway 401
    expectHeaders((await fetchGateway('/api/%2e%2e/x', {})).headers); // gateway 400
    expectHeaders((await p.http.post('/api/auth/login', '{bad json')).headers); // backend 400
  });
});
