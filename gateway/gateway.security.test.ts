import net from 'node:net';

import { Hs256TokenSigner } from '../adapters/crypto/hs256.token-signer';
import { BODY_SIGNATURE_TRAILER, IDENTITY_HEADERS, verifyIdentity } from '../core/identity/gateway-signature';
import { call } from './testing/fake-upstream';
import {
  accessClaims,
  API_KEY,
  forgeToken,
  type GatewayFixture,
  INTERNAL_SECRET,
  JWT_SECRET,
  ORG_ID,
  refreshClaims,
  startGatewayFixture,
  USER_ID,
} from './testing/gateway-fixture';

let fx: GatewayFixture;
beforeAll(async () => {
  fx = await startGatewayFixture();
});
afterAll(() => fx.close());

describe('token attacks on the JWT and public lanes', () => {
  const cases: [string, () => string][] = [
    ['alg=none, unsigned', () => forgeToken({ alg: 'none', typ: 'JWT' }, accessClaims({}, fx.clock.ms), JWT_SECRET, null)],
    ['alg=none with a signature', () => forgeToken({ alg: 'none', typ: 'JWT' }, accessClaims({}, fx.clock.ms), JWT_SECRET, 'sha256')],
    [
      'alg=HS512 with the right secret',
      () => forgeToken({ alg: 'HS512', typ: 'JWT' }, accessClaims({}, fx.clock.ms), JWT_SECRET, 'sha512'),
    ],
    ['alg=RS256 header', () => forgeToken({ alg: 'RS256', typ: 'JWT' }, accessClaims({}, fx.clock.ms), JWT_SECRET, 'sha256')],
    ['alg=hs256 (wrong case)', () => forgeToken({ alg: 'hs256', typ: 'JWT' }, accessClaims({}, fx.clock.ms), JWT_SECRET, 'sha256')],
    [
      'a token signed with another key',
      () => new Hs256TokenSigner({ secret: 'another-secret-of-some-length!!', clock: fx.clock }).sign(accessClaims({}, fx.clock.ms)),
    ],
    ['an expired token', () => fx.signer.sign(accessClaims({ exp: Math.floor(fx.clock.ms / 1000) - 1 }, fx.clock.ms))],
    ['a token expiring this very second', () => fx.signer.sign(accessClaims({ exp: Math.floor(fx.clock.ms / 1000) }, fx.clock.ms))],
    ['a refresh token presented as access token', () => fx.signer.sign(refreshClaims(fx.clock.ms))],
    // grown with issue 8
    [
      'a jku header pointing elsewhere',
      () =>
        forgeToken({ alg: 'HS256', typ: 'JWT', jku: 'https://evil.example/jwks.json' }, accessClaims({}, fx.clock.ms), 'evil', 'sha256'),
    ],
    [
      'a kid header with path traversal',
      () => forgeToken({ alg: 'HS256', typ: 'JWT', kid: '../../dev/null' }, accessClaims({}, fx.clock.ms), '', 'sha256'),
    ],
    ['an empty HMAC key', () => forgeToken({ alg: 'HS256', typ: 'JWT' }, accessClaims({}, fx.clock.ms), '', 'sha256')],
    [
      'a typ claim of refresh with access claims',
      () => forgeToken({ alg: 'HS256', typ: 'JWT' }, { ...accessClaims({}, fx.clock.ms), typ: 'refresh' }, JWT_SECRET, 'sha256'),
    ],
    [
      'a token version that is not a number',
      () => forgeToken({ alg: 'HS256', typ: 'JWT' }, { ...accessClaims({}, fx.clock.ms), tokenVersion: 'x' }, 'evil', 'sha256'),
    ],
    ['an unsigned token with the signature segment dropped', () => fx.accessToken.split('.').slice(0, 2).join('.')],
    [
      'a tampered payload',
      () => {
        const [h, , s] = fx.accessToken.split('.');
        const p = Buffer.from(JSON.stringify(accessClaims({ platformRole: 'superadmin' }, fx.clock.ms))).toString('base64url');
        return `${h}.${p}.${s}`;
      },
    ],
  ];

  it.each(cases)('JWT lane refuses %s with 401 Authentication Failed', async (_label, make) => {
    const token = make();
    for (const headers of [{ authorization: `Bearer ${token}` }, { cookie: `access_token=${token}` }]) {
      const r = await call(fx.port, { path: '/api/auth/me', headers });
      expect(r.status).toBe(401);
      expect(r.json).toEqual({ error: 'Authentication Failed', message: expect.any(String), code: 'AUTHENTICATION_FAILED' });
    }
  });

  it.each(cases)('public lane refuses %s', async (_label, make) => {
    const r = await call(fx.port, { path: '/api/public/agents/helper', headers: { authorization: `Bearer ${make()}` } });
    expect(r.status).toBe(401);
    expect(r.json.error).toBe('Authentication Failed');
  });

  it('never reaches the backend with a refused token', async () => {
    const before = fx.upstream.received.length;
    await call(fx.port, {
      path: '/api/bots',
      headers: { authorization: `Bearer ${forgeToken({ alg: 'none' }, accessClaims(), '', null)}` },
    });
    expect(fx.upstream.received.length).toBe(before);
  });
});

describe('spoofed identity headers', () => {
  const spoofed: Record<string, string> = {
    'user-id': 'evil-user',
    'organization-id': 'evil-org',
    'user-email': 'evil@example.com',
    'x-platform-role': 'superadmin',
    'x-org-role': 'owner',
    'x-api-key-id': 'evil-key',
    'x-api-key-scopes': 'agents:write,contacts:read,admin',
    'x-client-ip': '6.6.6.6',
    'x-gateway-timestamp': '1',
    'x-gateway-signature': 'a'.repeat(64),
    'x-forwarded-for': '6.6.6.6',
    'User-Id': 'evil-user-2',
  };

  const lanes: [string, { method?: string; path: string; headers?: Record<string, string> }, Record<string, string | null>][] = [
    ['open', { method: 'POST', path: '/api/auth/login' }, { userId: null, organizationId: null, apiKeyId: null }],
    ['public, anonymous', { path: '/api/public/agents/x' }, { userId: null, organizationId: null, apiKeyId: null }],
    [
      'public, with token',
      { path: '/api/public/agents/x', headers: { authorization: 'TOKEN' } },
      { userId: USER_ID, organizationId: ORG_ID, apiKeyId: null },
    ],
    ['JWT', { path: '/api/bots', headers: { authorization: 'TOKEN' } }, { userId: USER_ID, organizationId: ORG_ID, apiKeyId: null }],
    [
      'JWT via cookie',
      { path: '/api/bots', headers: { cookie: 'access_token=RAW' } },
      { userId: USER_ID, organizationId: ORG_ID, apiKeyId: null },
    ],
    ['API key', { path: '/v1/contacts/export', headers: { authorization: `Bearer ${API_KEY}` } }, { userId: null, organizationId: ORG_ID }],
  ];

  it.each(lanes)('%s lane: every inbound identity header is replaced by the signed value', async (_lane, req, expected) => {
    const headers: Record<string, string> = { ...spoofed };
    for (const [k, v] of Object.entries(req.headers ?? {})) {
      headers[k] = v === 'TOKEN' ? `Bearer ${fx.accessToken}` : v.replace('RAW', fx.accessToken);
    }
    const r = await call(fx.port, { method: req.method ?? 'GET', path: req.path, headers, body: req.method === 'POST' ? '{}' : undefined });
    expect(r.status).toBe(200);
    const got = r.json.headers as Record<string, string>;
    for (const name of IDENTITY_HEADERS.filter((h) => h !== BODY_SIGNATURE_TRAILER)) {
      expect(got[name]).toBeDefined();
      expect(got[name]).not.toContain('evil');
      expect(got[name]).not.toBe(spoofed[name]);
    }
    expect(got['x-client-ip']).toBe('127.0.0.1');
    expect(got['x-forwarded-for']).toBe('127.0.0.1');
    const identity = verifyIdentity(INTERNAL_SECRET, got, r.json.method, r.json.url, fx.clock.ms)?.identity;
    expect(identity).toMatchObject({ ...expected, clientIp: '127.0.0.1' });
    expect(identity?.platformRole).not.toBe('superadmin');
  });

  it('strips hop-by-hop headers and the headers named in Connection', async () => {
    const r = await call(fx.port, {
      path: '/health',
      headers: { connection: 'close, x-secret-hop', 'x-secret-hop': '1', te: 'trailers', 'proxy-authorization': 'Basic x' },
    });
    expect(r.json.headers['x-secret-hop']).toBeUndefined();
    expect(r.json.headers.te).toBeUndefined();
    expect(r.json.headers['proxy-authorization']).toBeUndefined();
  });

  it('replaces a client’s request id and trace context (no trusted proxy), and passes its other headers on', async () => {
    const traceparent = '00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01';
    const r = await call(fx.port, {
      path: '/health',
      headers: { traceparent, tracestate: 'vendor=evil', 'x-request-id': 'client-chosen', 'accept-language': 'fr' },
    });
    const got = r.json.headers as Record<string, string>;
    expect(got.traceparent).not.toBe(traceparent);
    expect(got.tracestate).toBeUndefined();
    expect(got['x-request-id']).toBe(r.headers['x-request-id']);
    expect(got['x-request-id']).not.toBe('client-chosen');
    expect(got['accept-language']).toBe('fr');
  });
});

describe('dot segments', () => {
  const variants = [
    '/api/../x',
    '/api/./x',
    '/api/%2e%2e/x',
    '/api/%2E%2E/x',
    '/api/%2E./x',
    '/api/.%2e/x',
    '/api/%2e/x',
    '/api/%252e%252e/x',
    '/api/%25252e%25252e/x',
    '/api/..%2fx',
    '/api/..%2Fx',
    '/api/..%5cx',
    '/api/..%5Cx',
    '/api\\..\\x',
    '/api/%5c..%5cx',
    '/api/..',
    '/api/.',
    '/api/bots/..',
    '/api/bots/%2e%2e',
    '/..',
    '/../etc/passwd',
    '/api/public/agents/../../bots',
    '/v1/../api/bots',
    '/api/..;/bots',
    '/api/%u002e%u002e/x',
    '/api/%ef%bc%8e%ef%bc%8e/x',
    '/api/../x?q=1',
    '/health/..%252fapi',
  ];

  it.each(variants)('refuses %s with 400 before anything else', async (path) => {
    const before = fx.upstream.received.length;
    const r = await call(fx.port, { path, headers: { authorization: `Bearer ${fx.accessToken}` } });
    expect(r.status).toBe(400);
    expect(r.json).toEqual({ error: 'Bad Request', message: 'Path must not contain dot segments', code: 'VALIDATION' });
    expect(fx.upstream.received.length).toBe(before);
  });

  it.each(['/api/bots/a..b', '/api/bots/...', '/api/bots/.well', '/health?x=/../y', '/marketplace/v1.2/agents'])(
    'lets %s through (dots that are not segments, or in the query)',
    async (path) => {
      const r = await call(fx.port, { path, headers: { authorization: `Bearer ${fx.accessToken}` } });
      expect(r.status).toBe(200);
      expect(r.json.url).toBe(path);
    },
  );

  it('refuses encoded control characters', async () => {
    const r = await call(fx.port, { path: '/api/bots%00.json', headers: { authorization: `Bearer ${fx.accessToken}` } });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('Bad Request');
  });
});

describe('request framing and odd requests', () => {
  function raw(port: number, request: string): Promise<string> {
    return new Promise((resolve, reject) => {
      // write, not end: a half-closed client makes node drop the exchange. Requests here ask for Connection: close.
      const socket = net.connect(port, '127.0.0.1', () => socket.write(request));
      let out = '';
      socket.setEncoding('utf8');
      socket.on('data', (c: string) => (out += c));
      socket.on('close', () => resolve(out));
      socket.on('error', reject);
    });
  }

  it('re-frames a chunked body on a GET so no bytes can smuggle a second request to the backend', async () => {
    const before = fx.upstream.received.length;
    const smuggled = 'GET /api/admin HTTP/1.1\r\nHost: x\r\n\r\n';
    const chunk = `${smuggled.length.toString(16)}\r\n${smuggled}\r\n0\r\n\r\n`;
    const res = await raw(fx.port, `GET /health HTTP/1.1\r\nHost: gw\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk}`);
    expect(res).toMatch(/^HTTP\/1\.1 200/);
    const got = fx.upstream.received.slice(before);
    expect(got.map((r) => r.url)).toEqual(['/health']);
    expect(got[0]!.body).toBe(smuggled);
  });

  it('forwards a chunked body with its signed digest in a trailer (issue 8: the body is part of the signature)', async () => {
    const before = fx.upstream.received.length;
    const body = '{"name":"streamed"}';
    const chunk = `${body.length.toString(16)}\r\n${body}\r\n0\r\n\r\n`;
    const res = await raw(
      fx.port,
      `POST /api/bots HTTP/1.1\r\nHost: gw\r\nAuthorization: Bearer ${fx.accessToken}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk}`,
    );
    expect(res).toMatch(/^HTTP\/1\.1 200/);
    const got = fx.upstream.received.slice(before)[0]!;
    expect(got.body).toBe(body);
    expect(got.headers['x-gateway-body-sha256']).toBe('trailer');
    expect(got.headers.trailer).toBe('x-gateway-body-signature');
  });

  it('refuses Content-Length together with Transfer-Encoding', async () => {
    const res = await raw(fx.port, 'POST /health HTTP/1.1\r\nHost: gw\r\nContent-Length: 4\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n');
    expect(res).toMatch(/^HTTP\/1\.1 400/);
  });

  it('answers malformed HTTP with a JSON 400', async () => {
    const res = await raw(fx.port, 'NOT-HTTP\r\n\r\n');
    expect(res).toMatch(/^HTTP\/1\.1 400/);
    expect(res).toContain('"error":"Bad Request"');
  });

  it('refuses an absolute-form request target', async () => {
    const res = await raw(fx.port, 'GET http://evil.example/api/bots HTTP/1.1\r\nHost: evil.example\r\nConnection: close\r\n\r\n');
    expect(res).toMatch(/^HTTP\/1\.1 400/);
  });

  it('refuses (400) a verified identity that cannot travel as headers instead of corrupting it', async () => {
    const token = fx.signer.sign(accessClaims({ email: 'ünï@例え.jp' }, fx.clock.ms));
    const r = await call(fx.port, { path: '/api/bots', headers: { authorization: `Bearer ${token}` } });
    expect(r.status).toBe(400);
    expect(r.json.error).toBe('Bad Request');
  });
});

describe('verified-token cache', () => {
  it('still refuses a token once it expires, after it was accepted and cached', async () => {
    const token = fx.signer.sign(accessClaims({ exp: Math.floor(fx.clock.ms / 1000) + 60 }, fx.clock.ms));
    const headers = { authorization: `Bearer ${token}` };
    expect((await call(fx.port, { path: '/api/bots', headers })).status).toBe(200);
    expect((await call(fx.port, { path: '/api/bots', headers })).status).toBe(200);
    fx.clock.ms += 60_000;
    try {
      const r = await call(fx.port, { path: '/api/bots', headers });
      expect(r.status).toBe(401);
      expect(r.json.error).toBe('Authentication Failed');
    } finally {
      fx.clock.ms -= 60_000;
    }
  });
});
