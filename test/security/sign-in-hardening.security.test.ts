import { randomUUID } from 'node:crypto';

import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, type TestUser, uniqueEmail } from '../support/users';

/** Issue 8 items 2 and 5: brute-force and sign-up limits, the password policy, and tokens that die on revocation. */
let p: TestPlatform;
const ADMIN = uniqueEmail('root');
beforeAll(async () => {
  p = await startTestPlatform({
    LOGIN_FAILURES_PER_ACCOUNT: '3',
    LOGIN_FAILURES_PER_IP: '12',
    REGISTRATIONS_PER_IP: '14',
    SUPERADMIN_EMAILS: ADMIN,
  });
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const login = (email: string, password: string) => p.http.post('/api/auth/login', { email, password });

describe('password policy', () => {
  it.each([
    ['aaaaaaaa', /too simple/],
    ['password1', /most common passwords/],
    ['12345678', /most common passwords/],
    ['qwertyuiop', /most common passwords/],
    ['Password', /most common passwords/],
    ['short', /./],
  ])('refuses %s with 400 Validation Error', async (password, message) => {
    const r = await p.http.post('/api/auth/register', { email: uniqueEmail('weak'), password });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('Validation Error');
    expect(r.body.message).toMatch(message);
  });
});

describe('sign-in limits', () => {
  let victim: TestUser;
  beforeAll(async () => {
    victim = await registerUser(p.http, { label: 'victim' });
  });

  it('locks an account after its failed sign-ins, even for the right password, with 429 and Retry-After', async () => {
    for (let i = 0; i < 3; i++) expect((await login(victim.email, `wrong-${i}-password`)).status).toBe(401);
    const locked = await login(victim.email, victim.password);
    expect(locked.status).toBe(429);
    expect(locked.body).toMatchObject({ error: 'rate limited', code: 'RATE_LIMITED' });
    const retryAfter = Number(locked.headers.get('retry-after'));
    expect(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 1800).toBe(true);
    // the same for an email with no account (locks do not reveal accounts)
    const ghost = uniqueEmail('ghost');
    for (let i = 0; i < 3; i++) expect((await login(ghost, 'wrong-password')).status).toBe(401);
    expect((await login(ghost, 'wrong-password')).status).toBe(429);
    // another account is not locked by this one's failures
    const other = await registerUser(p.http, { label: 'other' });
    expect((await login(other.email, other.password)).status).toBe(200);
  });

  it('limits failed sign-ins per address across accounts', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 12 && !statuses.includes(429); i++) statuses.push((await login(uniqueEmail('spray'), 'wrong-password')).status);
    expect(statuses).toContain(429);
  });

  it('limits registrations per address', async () => {
    const statuses: number[] = [];
    for (let i = 0; i < 20 && !statuses.includes(429); i++) {
      statuses.push((await p.http.post('/api/auth/register', { email: uniqueEmail('bulk'), password: `pw-${randomUUID()}` })).status);
    }
    expect(statuses.filter((s) => s === 201).length).toBeLessThan(20);
    expect(statuses.at(-1)).toBe(429);
  });
});

describe('access tokens after revocation', () => {
  let fresh: TestPlatform;
  beforeAll(async () => {
    fresh = await startTestPlatform({ SUPERADMIN_EMAILS: ADMIN });
  }, BOOT_TIMEOUT_MS);
  afterAll(() => fresh?.close(), BOOT_TIMEOUT_MS);

  it('refresh-token reuse refuses every access token issued before, at once; a new sign-in works', async () => {
    const u = await registerUser(fresh.http, { label: 'reuse' });
    const rotated = await fresh.http.post('/api/auth/refresh', { refreshToken: u.refreshToken });
    expect(rotated.status).toBe(200);
    const a2 = rotated.body.data.accessToken as string;
    expect((await fresh.http.get('/api/auth/me', { token: a2 })).status).toBe(200);
    // the spent refresh token comes back: someone holds a copy
    expect((await fresh.http.post('/api/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(401);
    for (const token of [u.accessToken, a2]) {
      const r = await fresh.http.get('/api/auth/me', { token });
      expect(r.status).toBe(401);
      expect(r.body.error).toBe('Authentication Failed');
    }
    expect((await fresh.http.post('/api/auth/refresh', { refreshToken: rotated.body.data.refreshToken })).status).toBe(401);
    const again = await fresh.http.post('/api/auth/login', { email: u.email, password: u.password });
    expect((await fresh.http.get('/api/auth/me', { token: again.body.data.accessToken })).status).toBe(200);
  });

  it('a password change refuses the old tokens and the old password, and returns a working session', async () => {
    const u = await registerUser(fresh.http, { label: 'changer' });
    const wrong = await fresh.http.post(
      '/api/auth/change-password',
      { currentPassword: 'nope-nope', newPassword: 'n3w-passphrase!' },
      { token: u.accessToken },
    );
    expect(wrong.status).toBe(401);
    const weak = await fresh.http.post(
      '/api/auth/change-password',
      { currentPassword: u.password, newPassword: 'password1' },
      { token: u.accessToken },
    );
    expect(weak.status).toBe(400);
    const r = await fresh.http.post(
      '/api/auth/change-password',
      { currentPassword: u.password, newPassword: 'n3w-passphrase!' },
      { token: u.accessToken },
    );
    expect(r.status).toBe(200);
    expect((await fresh.http.get('/api/auth/me', { token: u.accessToken })).status).toBe(401);
    expect((await fresh.http.post('/api/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(401);
    expect((await fresh.http.get('/api/auth/me', { token: r.body.data.accessToken })).status).toBe(200);
    expect((await fresh.http.post('/api/auth/login', { email: u.email, password: u.password })).status).toBe(401);
    expect((await fresh.http.post('/api/auth/login', { email: u.email, password: 'n3w-passphrase!' })).status).toBe(200);
  });

  it('a suspension refuses the tokens at once, and they stay refused after reactivation', async () => {
    const admin = await registerUser(fresh.http, { label: 'root', email: ADMIN });
    const owner = await registerUser(fresh.http, { label: 'org-owner' });
    const u = await joinOrganization(fresh.http, owner, owner.orgId, await registerUser(fresh.http, { label: 'suspendee' }), 'member');
    expect((await fresh.http.get('/api/auth/me', { token: u.accessToken })).status).toBe(200);
    const notAdmin = await fresh.http.patch(`/api/admin/users/${u.id}`, { status: 'suspended' }, { token: owner.accessToken });
    expect(notAdmin.status).toBe(403);
    const s = await fresh.http.patch(`/api/admin/users/${u.id}`, { status: 'suspended' }, { token: admin.accessToken });
    expect(s.status).toBe(200);
    expect(s.body.user.status).toBe('suspended');
    expect((await fresh.http.get('/api/auth/me', { token: u.accessToken })).status).toBe(403);
    expect((await fresh.http.post('/api/auth/refresh', { refreshToken: u.refreshToken })).status).toBe(401);
    await fresh.http.patch(`/api/admin/users/${u.id}`, { status: 'active' }, { token: admin.accessToken });
    expect((await fresh.http.get('/api/auth/me', { token: u.accessToken })).status).toBe(401);
    expect((await fresh.http.post('/api/auth/login', { email: u.email, password: u.password })).status).toBe(200);
    const unknown = await fresh.http.patch(`/api/admin/users/${randomUUID()}`, { status: 'suspended' }, { token: admin.accessToken });
    expect(unknown.status).toBe(404);
    const bad = await fresh.http.patch(`/api/admin/users/${u.id}`, { status: 'banned' }, { token: admin.accessToken });
    expect(bad.status).toBe(400);
  });
});
