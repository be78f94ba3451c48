/**
 * Low-severity findings, each fixed and proved through a running platform (gateway + api):
 * - guessable passwords (`password123`, `letmein1` and simple variations of common ones) refused at registration
 *   and password change;
 * - `__proto__`, `constructor` and `prototype` keys refused at any depth of any JSON body;
 * - the gateway's raw node:http errors (malformed header line, header block too large) carry the security headers.
 */
import { randomUUID } from 'node:crypto';
import net from 'node:net';

import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

let p: TestPlatform;
let owner: TestUser;

beforeAll(async () => {
  p = await startTestPlatform();
  owner = await registerUser(p.http, { label: 'low-findings' });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const uniqueEmail = (label: string) => `${label}-${randomUUID()}@example.com`;
const expectValidation = (r: { status: number; body: any }, message: RegExp) => {
  expect(r.status).toBe(400);
  expect(r.body).toMatchObject({ error: 'Validation Error', code: 'VALIDATION' });
  expect(r.body.message).toMatch(message);
};

describe('guessable passwords', () => {
  const GUESSABLE = ['password123', 'letmein1', 'iloveyou1', 'monkey123', 'Welcome1', 'P@ssw0rd2024!', 'Summer2024!', 'qwerty123456'];

  it.each(GUESSABLE)('refuses %s at registration with a 400 naming the rule', async (password) => {
    const r = await p.http.post('/api/auth/register', { email: uniqueEmail('weak'), password });
    expectValidation(r, /^password is (one of the most common passwords|too easy to guess)/);
    expect(r.body.details).toEqual([{ field: 'password', message: expect.stringMatching(/common password/) }]);
  });

  it('refuses password123 and letmein1 at change-password, and accepts a passphrase', async () => {
    const u = await registerUser(p.http, { label: 'changer' });
    for (const newPassword of ['password123', 'letmein1']) {
      const r = await p.http.post('/api/auth/change-password', { currentPassword: u.password, newPassword }, { token: u.accessToken });
      expectValidation(r, /^newPassword is /);
    }
    const ok = await p.http.post(
      '/api/auth/change-password',
      { currentPassword: u.password, newPassword: 'plum tractor sideways' },
      { token: u.accessToken },
    );
    expect(ok.status).toBe(200);
  });

  it('still accepts the passwords the suites and benches register with', async () => {
    for (const password of [`pw-${randomUUID()}`, 'correct horse battery', 'long enough password', 'bench-password-1', 'monkey83749201']) {
      expect((await p.http.post('/api/auth/register', { email: uniqueEmail('fine'), password })).status).toBe(201);
    }
  });
});

describe('prototype keys in JSON bodies', () => {
  it.each([
    ['a KB settings object', '/api/knowledge/kb', '{"name":"kb","settings":{"__proto__":{"polluted":true}}}', 'body.settings.__proto__'],
    [
      'a nested constructor',
      '/api/knowledge/kb',
      '{"name":"kb","settings":{"a":[{"b":{"constructor":{"x":1}}}]}}',
      'body.settings.a[0].b.constructor',
    ],
    ['a top-level prototype', '/api/knowledge/kb', '{"name":"kb","prototype":{}}', 'body.prototype'],
    [
      'a registration',
      '/api/auth/register',
      `{"email":"${uniqueEmail('proto')}","password":"pw-${randomUUID()}","__proto__":{"isAdmin":true}}`,
      'body.__proto__',
    ],
  ])('refuses %s with 400 Validation Error naming the key', async (_what, path, body, at) => {
    const token = path.startsWith('/api/auth') ? {} : { token: owner.accessToken };
    const r = await p.http.post(path, body, token);
    expectValidation(r, /is not allowed/);
    const key = at.split('.').at(-1)!;
    expect(r.body.message).toContain(`"${key}"`);
    expect(r.body.details).toEqual([{ field: at, message: expect.stringContaining(key) }]);
  });

  it('refuses them in a PATCH and in chat variables too, and leaves look-alike keys alone', async () => {
    const kb = await p.http.post(
      '/api/knowledge/kb',
      { name: 'plain', settings: { constructorName: 'x', protoType: 1 } },
      { token: owner.accessToken },
    );
    expect(kb.status).toBe(201);
    expect(kb.body.knowledgeBase.settings).toMatchObject({ constructorName: 'x', protoType: 1 });
    const id = kb.body.knowledgeBase.id;
    expectValidation(
      await p.http.patch(`/api/knowledge/kb/${id}`, '{"settings":{"__proto__":{"x":1}}}', { token: owner.accessToken }),
      /__proto__/,
    );
    const stored = await p.http.get(`/api/knowledge/kb/${id}`, { token: owner.accessToken });
    expect(Object.keys(stored.body.knowledgeBase.settings)).not.toContain('__proto__');
    const bot = await p.http.post('/api/bots', { name: 'Chatty', knowledgeBaseIds: [], isDraft: true }, { token: owner.accessToken });
    expectValidation(
      await p.http.post(`/api/bots/${bot.body.bot.id}/chat`, '{"message":"hi","variables":{"__proto__":{"x":1}}}', {
        token: owner.accessToken,
      }),
      /body\.variables\.__proto__/,
    );
  });
});

/** Sends raw bytes to the gateway and reads the whole answer (the gateway closes the connection). */
function rawExchange(bytes: string): Promise<string> {
  const { hostname, port } = new URL(p.gatewayUrl);
  return new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (c: string) => (text += c));
    socket.on('end', () => resolve(text));
    socket.on('close', () => resolve(text));
    socket.on('error', (e) => (text ? resolve(text) : reject(e)));
    socket.write(bytes);
  });
}

function parseRaw(text: string) {
  const [head = '', body = ''] = text.split('\r\n\r\n');
  const [statusLine = '', ...lines] = head.split('\r\n');
  const headers = Object.fromEntries(
    lines.map((l) => [l.slice(0, l.indexOf(':')).trim().toLowerCase(), l.slice(l.indexOf(':') + 1).trim()]),
  );
  return { status: Number(statusLine.split(' ')[1]), headers, body: JSON.parse(body) as unknown };
}

describe("the gateway's raw parser errors", () => {
  const expectSecurityHeaders = (headers: Record<string, string>) => {
    expect(headers).toMatchObject({
      'x-content-type-options': 'nosniff',
      'x-frame-options': 'DENY',
      'referrer-policy': 'no-referrer',
      'cross-origin-resource-policy': 'same-origin',
      'content-security-policy': "default-src 'none'; frame-ancestors 'none'",
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
      connection: 'close',
    });
  };

  it('a malformed header line: 400 with the security headers', async () => {
    const r = parseRaw(await rawExchange('GET /api/health HTTP/1.1\r\nHost: x\r\nthis line has no colon\r\n\r\n'));
    expect(r.status).toBe(400);
    expectSecurityHeaders(r.headers);
    expect(r.body).toEqual({ error: 'Bad Request', message: 'Malformed HTTP request', code: expect.any(String) });
  });

  it('a header block over the limit: 431 with the security headers', async () => {
    const r = parseRaw(await rawExchange(`GET /api/health HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(64 * 1024)}\r\n\r\n`));
    expect(r.status).toBe(431);
    expectSecurityHeaders(r.headers);
    expect(r.body).toMatchObject({ error: 'Request Header Fields Too Large', message: 'Malformed HTTP request' });
  });
});
