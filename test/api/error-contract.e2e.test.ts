import { spawnSync } from 'node:child_process';

import express from 'express';

import { requestLog } from '../../adapters/http/request-log';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

let p: TestPlatform;
let owner: TestUser;
beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'contract' });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

describe('one error contract at every layer', () => {
  it('gives every error a code and the request id, from the gateway, the router and the handlers', async () => {
    const gateway401 = await p.http.get('/api/bots');
    const unknownRoute = await p.http.get('/api/no-such-thing', { token: owner.accessToken });
    const handler400 = await p.http.post('/api/knowledge/kb', { description: 'no name' }, { token: owner.accessToken });
    expect(gateway401.body).toMatchObject({ error: 'Missing or invalid authorization header', code: 'MISSING_AUTHORIZATION' });
    expect(unknownRoute.status).toBe(404);
    expect(unknownRoute.body).toMatchObject({ error: 'Not Found', code: 'NOT_FOUND' });
    expect(handler400.body).toMatchObject({ error: 'Validation Error', code: 'VALIDATION' });
    for (const r of [gateway401, unknownRoute, handler400]) expect(r.headers.get('x-request-id')).toMatch(/^[\w-]{8,}$/);
    expect(new Set([gateway401, unknownRoute, handler400].map((r) => r.headers.get('x-request-id'))).size).toBe(3);
  });

  it('answers a wrong method with 405 and Allow, not 404', async () => {
    const r = await p.http.patch('/api/bots', {}, { token: owner.accessToken });
    expect(r.status).toBe(405);
    expect(r.body).toMatchObject({ error: 'Method Not Allowed', code: 'METHOD_NOT_ALLOWED' });
    expect(r.headers.get('allow')).toEqual(expect.stringContaining('GET'));
    expect(r.headers.get('allow')).toEqual(expect.stringContaining('POST'));
  });

  it('refuses a JSON body sent as another type with 415, and wrong types without coercing them', async () => {
    const asText = await p.http.post('/api/knowledge/kb', JSON.stringify({ name: 'typed' }), {
      token: owner.accessToken,
      headers: { 'content-type': 'text/plain' },
    });
    expect(asText.status).toBe(415);
    expect(asText.body).toMatchObject({ error: 'Unsupported Media Type', code: 'UNSUPPORTED_MEDIA_TYPE' });
    const numberName = await p.http.post('/api/knowledge/kb', { name: 123 }, { token: owner.accessToken });
    expect(numberName.status).toBe(400);
    expect(numberName.body.error).toBe('Validation Error');
    // An unpaired surrogate cannot be stored (Postgres refuses it in text and jsonb): a 400 naming the field.
    const surrogate = await p.http.post('/api/knowledge/kb', { name: 'broken \ud800 name' }, { token: owner.accessToken });
    expect(surrogate.status).toBe(400);
    expect(surrogate.body).toMatchObject({ error: 'Validation Error', code: 'VALIDATION' });
    const kbs = await p.http.get('/api/knowledge/kb', { token: owner.accessToken });
    expect(JSON.stringify(kbs.body)).not.toContain('"123"');
  });

  it('tells a caller who sends an API key to /api that keys work on /v1', async () => {
    const created = await p.http.post('/api/api-keys', { name: 'k', scopes: ['agents:write'] }, { token: owner.accessToken });
    expect(created.status).toBe(201);
    const r = await p.http.get('/api/bots', { token: created.body.key });
    expect(r.status).toBe(401);
    expect(r.body.message).toContain('/v1');
  });
});

describe('CORS', () => {
  const origin = 'https://shop.example.com';
  it('answers preflights of the public lane and /v1 for other origins', async () => {
    for (const path of ['/api/public/agents/some-slug/chat', '/v1/chat/completions']) {
      const r = await p.http.request('OPTIONS', path, {
        headers: { origin, 'access-control-request-method': 'POST', 'access-control-request-headers': 'content-type' },
      });
      expect(r.status).toBe(204);
      expect(r.headers.get('access-control-allow-origin')).toBe('*');
      expect(r.headers.get('access-control-allow-methods')).toContain('POST');
    }
    const publicGet = await p.http.get('/api/public/agents/no-such-slug', { headers: { origin } });
    expect(publicGet.headers.get('access-control-allow-origin')).toBe('*');
  });

  it('gives the JWT lane no CORS headers', async () => {
    const r = await p.http.get('/api/auth/me', { token: owner.accessToken, headers: { origin } });
    expect(r.status).toBe(200);
    expect(r.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('request log', () => {
  it('writes one line per request with its route template, status and the id the answer carries', async () => {
    const lines: Record<string, unknown>[] = [];
    const app = express();
    app.use(requestLog((_level, _message, extra) => lines.push(extra as Record<string, unknown>)));
    app.get('/items/:id', (_req, res) => void res.status(201).json({ ok: true }));
    const server = app.listen(0);
    try {
      const { port } = server.address() as { port: number };
      const res = await fetch(`http://127.0.0.1:${port}/items/42`, { headers: { 'x-request-id': 'req-from-gateway-1' } });
      expect(res.headers.get('x-request-id')).toBe('req-from-gateway-1');
      await new Promise((r) => setTimeout(r, 20));
      expect(lines).toEqual([
        expect.objectContaining({
          method: 'GET',
          route: '/items/:id',
          status: 201,
          requestId: 'req-from-gateway-1',
          durationMs: expect.any(Number),
        }),
      ]);
    } finally {
      server.close();
    }
  });
});

describe('command line', () => {
  it('prints help and exits 0', () => {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'bin/platform.ts', '--help'], { encoding: 'utf8', timeout: 60_000 });
    expect(r.status).toBe(0);
    expect(r.stdout).toContain('usage: platform');
  });
});
