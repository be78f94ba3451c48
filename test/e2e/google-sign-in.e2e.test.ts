import { FakeGoogle, type FakeProfile } from '../support/fake-google';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, uniqueEmail } from '../support/users';

const APP_URL = 'http://app.example.test';
const google = new FakeGoogle();
let p: TestPlatform;
let subjects = 0;

beforeAll(async () => {
  await google.start();
  p = await startTestPlatform({ ...google.env, APP_URL });
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
  await google.close();
}, BOOT_TIMEOUT_MS);

const profile = (over: Partial<FakeProfile> = {}): FakeProfile => ({
  sub: `google-${++subjects}-${Date.now()}`,
  email: uniqueEmail('g'),
  email_verified: true,
  name: 'Grace Hopper',
  ...over,
});

/** The browser's part: start at the platform, consent at the provider, come back to the callback. */
async function consent(as: FakeProfile) {
  const start = await p.http.get('/api/auth/google');
  expect(start.status).toBe(302);
  const authorize = new URL(start.headers.get('location')!);
  google.nextProfile = as;
  const atProvider = await fetch(authorize, { redirect: 'manual' });
  expect(atProvider.status).toBe(302);
  return { authorize, callback: new URL(atProvider.headers.get('location')!) };
}

async function follow(callback: URL) {
  const r = await fetch(callback, { redirect: 'manual' });
  const text = await r.text();
  const json = (r.headers.get('content-type') ?? '').includes('json');
  return { status: r.status, location: r.headers.get('location'), body: json ? JSON.parse(text) : undefined };
}

function tokensFrom(location: string | null) {
  expect(location).not.toBeNull();
  const url = new URL(location!);
  expect(`${url.origin}${url.pathname}`).toBe(`${APP_URL}/auth/callback`);
  expect(url.search).toBe(''); // tokens travel in the fragment only, never to a server log
  const fragment = new URLSearchParams(url.hash.slice(1));
  return { accessToken: fragment.get('accessToken')!, refreshToken: fragment.get('refreshToken')! };
}

describe('Google sign-in against a local identity provider', () => {
  it('redirects to the consent screen with state, code_challenge and S256', async () => {
    const start = await p.http.get('/api/auth/google');
    expect(start.status).toBe(302);
    const url = new URL(start.headers.get('location')!);
    expect(`${url.origin}${url.pathname}`).toBe(google.authorizationEndpoint);
    const q = url.searchParams;
    expect(q.get('client_id')).toBe(google.clientId);
    expect(q.get('response_type')).toBe('code');
    expect(q.get('scope')).toEqual(expect.stringContaining('email'));
    expect(q.get('redirect_uri')).toBe(`${p.gatewayUrl}/api/auth/google/callback`);
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('code_challenge_method')).toBe('S256');
    const again = new URL((await p.http.get('/api/auth/google')).headers.get('location')!);
    expect(again.searchParams.get('state')).not.toBe(q.get('state'));
    expect(again.searchParams.get('code_challenge')).not.toBe(q.get('code_challenge'));
  });

  it('creates an account for a new Google user and redirects to APP_URL/auth/callback#accessToken=...', async () => {
    const who = profile();
    const { callback } = await consent(who);
    expect(callback.origin).toBe(p.gatewayUrl);
    const r = await follow(callback);
    expect(r.status).toBe(302);
    expect(google.exchanges[google.exchanges.length - 1]).toMatchObject({ pkceVerified: true, status: 200 });
    const { accessToken, refreshToken } = tokensFrom(r.location);
    const me = await p.http.get('/api/auth/me', { token: accessToken });
    expect(me.status).toBe(200);
    expect(me.body.user).toMatchObject({
      email: who.email,
      displayName: 'Grace Hopper',
      accountType: 'google',
      emailVerified: true,
      status: 'active',
    });
    expect(me.body.user.organizations).toEqual([expect.objectContaining({ role: 'owner' })]);
    expect((await p.http.post('/api/auth/refresh', { refreshToken })).status).toBe(200);

    // The same Google account signs in to the same user.
    const second = await follow((await consent({ ...who, name: 'Renamed' })).callback);
    const again = await p.http.get('/api/auth/me', { token: tokensFrom(second.location).accessToken });
    expect(again.body.user.id).toBe(me.body.user.id);
  });

  it('links an existing password account with the same verified email (same user id)', async () => {
    const u = await registerUser(p.http, { label: 'linked' });
    const r = await follow((await consent(profile({ email: u.email.toUpperCase(), email_verified: true }))).callback);
    expect(r.status).toBe(302);
    const me = await p.http.get('/api/auth/me', { token: tokensFrom(r.location).accessToken });
    expect(me.body.user).toMatchObject({ id: u.id, emailVerified: true, organizations: u.user.organizations });
    // The password still works.
    expect((await p.http.post('/api/auth/login', { email: u.email, password: u.password })).status).toBe(200);
  });

  it('does not link when the provider has not verified the email', async () => {
    const u = await registerUser(p.http, { label: 'unverified' });
    const r = await follow((await consent(profile({ email: u.email, email_verified: false }))).callback);
    expect(r.status).toBe(401);
    expect(r.location).toBeNull();
    expect(r.body.error).toBe('Authentication Failed');
    const stored = await p.store.repos.users.findById(u.id);
    expect(stored).toMatchObject({ googleSubject: null, emailVerified: false });
  });

  it('refuses a state that was already used, and an unknown one', async () => {
    const { authorize, callback } = await consent(profile());
    expect((await follow(callback)).status).toBe(302);
    const replay = await follow(callback);
    expect(replay.status).toBe(400);
    expect(replay.location).toBeNull();
    // Even with a fresh code for the same state (and challenge), the state is spent.
    const fresh = new URL((await fetch(authorize, { redirect: 'manual' })).headers.get('location')!);
    expect(fresh.searchParams.get('state')).toBe(callback.searchParams.get('state'));
    expect((await follow(fresh)).status).toBe(400);

    const unknown = new URL(callback);
    unknown.searchParams.set('state', 'never-issued');
    expect((await follow(unknown)).status).toBe(400);
  });

  it("checks PKCE: a code obtained for one sign-in cannot complete another sign-in's state", async () => {
    const a = await consent(profile());
    const b = await consent(profile());
    const crossed = new URL(a.callback);
    crossed.searchParams.set('code', b.callback.searchParams.get('code')!);
    const r = await follow(crossed);
    expect(r.status).toBe(401);
    expect(google.exchanges[google.exchanges.length - 1]).toMatchObject({ pkceVerified: false, status: 400 });
  });

  it('verifies the ID token: a broken signature or a nonce of another sign-in signs no one in', async () => {
    for (const fault of ['signature', 'nonce'] as const) {
      const who = profile();
      const { callback } = await consent(who);
      google.idTokenFault = fault;
      try {
        const r = await follow(callback);
        expect({ fault, status: r.status, location: r.location }).toEqual({ fault, status: 401, location: null });
      } finally {
        google.idTokenFault = 'none';
      }
      expect(await p.store.repos.users.findByEmail(who.email)).toBeNull();
    }
  });

  it('answers a provider error or a missing code without signing anyone in', async () => {
    const cb = `${p.gatewayUrl}/api/auth/google/callback`;
    expect((await follow(new URL(`${cb}?error=access_denied&state=x`))).status).toBe(401);
    expect((await follow(new URL(`${cb}?state=x`))).status).toBe(400);
  });
});
