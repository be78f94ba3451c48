import { randomUUID } from 'node:crypto';

import { claimsOf } from '../support/http';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { joinOrganization, registerUser, uniqueEmail } from '../support/users';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

let p: TestPlatform;
beforeAll(async () => {
  p = await startTestPlatform();
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

const expectError = (r: { status: number; body: any }, status: number, error: string) => {
  expect({ status: r.status, error: r.body?.error }).toEqual({ status, error });
  expect(typeof r.body.message).toBe('string');
};

describe('register and login through the gateway', () => {
  it('registers: 201 {success, data:{user, accessToken, refreshToken}} with the user of spec 2.1', async () => {
    const email = uniqueEmail('Ada').replace('ada', 'Ada');
    const r = await p.http.post('/api/auth/register', {
      email,
      password: 'correct horse battery',
      displayName: 'Ada Lovelace',
      organizationName: 'Analytical Engines',
    });
    expect(r.status).toBe(201);
    expect(r.body.success).toBe(true);
    expect(Object.keys(r.body.data).sort()).toEqual(['accessToken', 'refreshToken', 'user']);
    const { user, accessToken, refreshToken } = r.body.data;
    expect(Object.keys(user).sort()).toEqual(
      ['accountType', 'displayName', 'email', 'emailVerified', 'id', 'isSuperAdmin', 'organizations', 'platformRole', 'status'].sort(),
    );
    expect(user).toMatchObject({
      email: email.toLowerCase(),
      displayName: 'Ada Lovelace',
      emailVerified: false,
      accountType: 'password',
      platformRole: 'user',
      isSuperAdmin: false,
      status: 'active',
    });
    expect(user.id).toMatch(UUID);
    expect(user.organizations).toHaveLength(1);
    expect(user.organizations[0]).toEqual({
      id: expect.stringMatching(UUID),
      name: 'Analytical Engines',
      slug: expect.stringMatching(SLUG),
      role: 'owner',
    });
    expect(user).not.toHaveProperty('passwordHash');

    // Spec 2.2 and 8: claims, active organization first, 24 h access and 7 day refresh lifetimes.
    const access = claimsOf(accessToken);
    expect(access).toMatchObject({ userId: user.id, email: user.email, platformRole: 'user', organizations: user.organizations });
    expect(access.exp - access.iat).toBe(24 * 3600);
    const refresh = claimsOf(refreshToken);
    expect(refresh.exp - refresh.iat).toBe(7 * 24 * 3600);
  });

  it('gives a default display name and organization when only email and password are sent', async () => {
    const r = await p.http.post('/api/auth/register', { email: uniqueEmail('minimal'), password: 'long enough password' });
    expect(r.status).toBe(201);
    expect(r.body.data.user.displayName).toMatch(/^minimal-/);
    expect(r.body.data.user.organizations[0].slug).toMatch(SLUG);
  });

  it('refuses invalid bodies with 400 Validation Error', async () => {
    expectError(await p.http.post('/api/auth/register', { password: 'long enough password' }), 400, 'Validation Error');
    expectError(
      await p.http.post('/api/auth/register', { email: 'not-an-email', password: 'long enough password' }),
      400,
      'Validation Error',
    );
    expectError(await p.http.post('/api/auth/register', { email: uniqueEmail(), password: 'short' }), 400, 'Validation Error');
    expectError(await p.http.post('/api/auth/register', '{"email":', {}), 400, 'Validation Error');
  });

  it('answers 409 to a duplicate email, whatever its case', async () => {
    const u = await registerUser(p.http, { label: 'dup' });
    expectError(await p.http.post('/api/auth/register', { email: u.email, password: 'another password' }), 409, 'Conflict');
    expectError(await p.http.post('/api/auth/register', { email: u.email.toUpperCase(), password: 'another password' }), 409, 'Conflict');
  });

  it('logs in with 200 and the register shape; a wrong password or an unknown email is 401 Authentication Failed', async () => {
    const u = await registerUser(p.http, { label: 'login' });
    const ok = await p.http.post('/api/auth/login', { email: u.email.toUpperCase(), password: u.password });
    expect(ok.status).toBe(200);
    expect(ok.body.success).toBe(true);
    expect(ok.body.data.user).toEqual(u.user);
    expect(typeof ok.body.data.accessToken).toBe('string');
    expect(typeof ok.body.data.refreshToken).toBe('string');

    const wrong = await p.http.post('/api/auth/login', { email: u.email, password: `${u.password}x` });
    expectError(wrong, 401, 'Authentication Failed');
    const unknown = await p.http.post('/api/auth/login', { email: uniqueEmail('nobody'), password: u.password });
    expectError(unknown, 401, 'Authentication Failed');
    expect(unknown.body.message).toBe(wrong.body.message); // no account enumeration
  });

  it('serves /api/auth/me with the bearer token and with the access_token cookie (spec 5.1)', async () => {
    const u = await registerUser(p.http, { label: 'me' });
    const viaHeader = await p.http.get('/api/auth/me', { token: u.accessToken });
    expect(viaHeader.status).toBe(200);
    expect(viaHeader.body.user).toEqual(u.user);
    const viaCookie = await p.http.get('/api/auth/me', { headers: { cookie: `access_token=${u.accessToken}` } });
    expect(viaCookie.status).toBe(200);
    expect(viaCookie.body.user.id).toBe(u.id);
    expectError(await p.http.get('/api/auth/me'), 401, 'Missing or invalid authorization header');
  });
});

describe('refresh token rotation', () => {
  it('works once; reusing a spent token is 401 and revokes the whole family', async () => {
    const u = await registerUser(p.http, { label: 'rotate' });
    const first = await p.http.post('/api/auth/refresh', { refreshToken: u.refreshToken });
    expect(first.status).toBe(200);
    expect(first.body.success).toBe(true);
    expect(first.body.data.user).toEqual(u.user);
    const next = first.body.data.refreshToken as string;
    expect(next).not.toBe(u.refreshToken);
    expect((await p.http.get('/api/auth/me', { token: first.body.data.accessToken })).status).toBe(200);

    expectError(await p.http.post('/api/auth/refresh', { refreshToken: u.refreshToken }), 401, 'Authentication Failed');
    // The reuse looked like theft: the newer token of the same family is dead too.
    expectError(await p.http.post('/api/auth/refresh', { refreshToken: next }), 401, 'Authentication Failed');
    // A fresh sign-in starts a new family.
    const again = await p.http.post('/api/auth/login', { email: u.email, password: u.password });
    expect((await p.http.post('/api/auth/refresh', { refreshToken: again.body.data.refreshToken })).status).toBe(200);
  });

  it('chains: each rotation returns a token that works once', async () => {
    const u = await registerUser(p.http, { label: 'chain' });
    let token = u.refreshToken;
    for (let i = 0; i < 3; i++) {
      const r = await p.http.post('/api/auth/refresh', { refreshToken: token });
      expect(r.status).toBe(200);
      token = r.body.data.refreshToken;
    }
  });

  it('refuses garbage and access tokens presented as refresh tokens', async () => {
    const u = await registerUser(p.http, { label: 'garbage' });
    expectError(await p.http.post('/api/auth/refresh', { refreshToken: 'nope' }), 401, 'Authentication Failed');
    expectError(await p.http.post('/api/auth/refresh', { refreshToken: u.accessToken }), 401, 'Authentication Failed');
    expectError(await p.http.post('/api/auth/refresh', {}), 400, 'Validation Error');
  });
});

describe('switch-org', () => {
  it('re-issues both tokens with the chosen organization first; a refresh keeps the choice; 403 when not a member', async () => {
    const owner = await registerUser(p.http, { label: 'switch-owner', organizationName: 'Second Org' });
    const u = await registerUser(p.http, { label: 'switcher', organizationName: 'Home Org' });
    const outsider = await registerUser(p.http, { label: 'outsider' });
    await joinOrganization(p.http, owner, owner.orgId, u, 'member');
    // joinOrganization switched: the token now lists the joined organization first.
    expect(claimsOf(u.accessToken).organizations.map((o: any) => o.id)).toEqual([owner.orgId, u.orgId]);
    expect(u.user.organizations[0]).toMatchObject({ id: owner.orgId, name: 'Second Org', role: 'member' });

    const back = await p.http.post('/api/auth/switch-org', { organizationId: u.orgId }, { token: u.accessToken });
    expect(back.status).toBe(200);
    expect(back.body.success).toBe(true);
    expect(claimsOf(back.body.data.accessToken).organizations[0]).toMatchObject({ id: u.orgId, role: 'owner' });
    expect(back.body.data.user.organizations.map((o: any) => o.id)).toEqual([u.orgId, owner.orgId]);

    const chosen = await p.http.post('/api/auth/switch-org', { organizationId: owner.orgId }, { token: back.body.data.accessToken });
    const refreshed = await p.http.post('/api/auth/refresh', { refreshToken: chosen.body.data.refreshToken });
    expect(refreshed.status).toBe(200);
    expect(claimsOf(refreshed.body.data.accessToken).organizations[0].id).toBe(owner.orgId);
    expect(refreshed.body.data.user.organizations[0].id).toBe(owner.orgId);

    const me = await p.http.get('/api/auth/me', { token: refreshed.body.data.accessToken });
    expect(me.body.user.organizations[0].id).toBe(owner.orgId);

    expectError(await p.http.post('/api/auth/switch-org', { organizationId: outsider.orgId }, { token: u.accessToken }), 403, 'Forbidden');
    expectError(await p.http.post('/api/auth/switch-org', { organizationId: randomUUID() }, { token: u.accessToken }), 403, 'Forbidden');
    expectError(
      await p.http.post('/api/auth/switch-org', { organizationId: 'not-a-uuid' }, { token: u.accessToken }),
      400,
      'Validation Error',
    );
    expectError(await p.http.post('/api/auth/switch-org', { organizationId: owner.orgId }), 401, 'Missing or invalid authorization header');
  });
});

describe('Google sign-in when not configured', () => {
  it('answers 404 on both endpoints', async () => {
    expect((await p.http.get('/api/auth/google')).status).toBe(404);
    expect((await p.http.get('/api/auth/google/callback?code=x&state=y')).status).toBe(404);
  });
});
