import { randomUUID } from 'node:crypto';

import { OpenIdClientOidc } from '../../adapters/openid-client/openid-client.oidc-client';
import { browseTo, LocalOidcProvider, type OidcTestProfile } from '../support/oidc/local-oidc-provider';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser, uniqueEmail } from '../support/users';

const APP_URL = 'http://app.example.test';
const ADMIN_EMAIL = `root-${randomUUID().slice(0, 8)}@example.com`;
const SLUGS = ['acme', 'acme-restricted'];
const idp = new LocalOidcProvider();
let p: TestPlatform;
let admin: TestUser;
let company: TestUser; // owner of the organization SSO users join
let providerId: string;

beforeAll(async () => {
  // JWKS cooldown 0: a token with an unknown kid refetches at once (production waits 30 s between downloads).
  p = await startTestPlatform(
    { APP_URL, SUPERADMIN_EMAILS: ADMIN_EMAIL, PLAN_SEATS: '100' },
    { oidc: new OpenIdClientOidc({ jwksCooldownMs: 0 }) },
  );
  await idp.start(SLUGS.map((s) => `${p.gatewayUrl}/api/auth/sso/${s}/callback`));
  admin = await registerUser(p.http, { email: ADMIN_EMAIL });
  company = await registerUser(p.http, { label: 'company', organizationName: 'Acme Corp' });
  const created = await p.http.post('/api/admin/sso-providers', providerBody(), { token: admin.accessToken });
  expect(created.status).toBe(201);
  providerId = created.body.provider.id;
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await idp.stop();
  await p?.close();
}, BOOT_TIMEOUT_MS);

function providerBody(over: Record<string, unknown> = {}) {
  return {
    slug: 'acme',
    name: 'Acme Okta',
    issuerUrl: idp.issuer,
    clientId: idp.clientId,
    clientSecret: idp.clientSecret,
    organizationId: company.orgId,
    defaultRole: 'viewer',
    groupClaim: 'groups',
    groupRoles: { engineering: 'editor', 'it-admins': 'admin' },
    ...over,
  };
}

const profile = (over: Partial<OidcTestProfile> = {}): OidcTestProfile => ({
  sub: `sub-${randomUUID()}`,
  email: uniqueEmail('sso'),
  email_verified: true,
  name: 'Ada Lovelace',
  groups: [],
  ...over,
});

/** The whole browser round trip; returns the platform's answer to the callback. */
async function signIn(who: OidcTestProfile, slug = 'acme') {
  await idp.signInAs(who);
  const start = await p.http.get(`/api/auth/sso/${slug}`);
  expect(start.status).toBe(302);
  const callback = await browseTo(start.headers.get('location')!, `${p.gatewayUrl}/api/auth/sso/${slug}/callback`);
  const r = await fetch(callback, { redirect: 'manual' });
  const text = await r.text();
  return { status: r.status, location: r.headers.get('location'), body: text.startsWith('{') ? JSON.parse(text) : undefined, callback };
}

function tokensFrom(location: string | null) {
  const url = new URL(location!);
  expect(`${url.origin}${url.pathname}`).toBe(`${APP_URL}/auth/callback`);
  expect(url.search).toBe('');
  const fragment = new URLSearchParams(url.hash.slice(1));
  return { accessToken: fragment.get('accessToken')!, refreshToken: fragment.get('refreshToken')! };
}

const me = async (location: string | null) => (await p.http.get('/api/auth/me', { token: tokensFrom(location).accessToken })).body.user;

describe('provider administration (superadmin)', () => {
  it('never returns the client secret, and refuses other users', async () => {
    const got = await p.http.get(`/api/admin/sso-providers/${providerId}`, { token: admin.accessToken });
    expect(got.status).toBe(200);
    expect(got.body.provider).toMatchObject({ slug: 'acme', hasClientSecret: true, issuerUrl: idp.issuer, defaultRole: 'viewer' });
    expect(JSON.stringify(got.body)).not.toContain(idp.clientSecret);
    expect((await p.http.get('/api/admin/sso-providers', { token: company.accessToken })).status).toBe(403);
    expect((await p.http.post('/api/admin/sso-providers', providerBody({ slug: 'x' }), { token: company.accessToken })).status).toBe(403);
  });

  it('validates: unique slug, https issuer, no owner grants, Google preset fills the issuer', async () => {
    const post = (over: Record<string, unknown>) =>
      p.http.post('/api/admin/sso-providers', providerBody(over), { token: admin.accessToken });
    expect((await post({})).status).toBe(409);
    expect((await post({ slug: 'plain-http', issuerUrl: 'http://idp.example.com' })).status).toBe(400);
    expect((await post({ slug: 'owners', defaultRole: 'owner' })).status).toBe(400);
    expect((await post({ slug: 'owners', groupRoles: { boss: 'owner' } })).status).toBe(400);
    const google = await post({ slug: 'google-ws', preset: 'google', issuerUrl: undefined, groupClaim: null, groupRoles: {} });
    expect(google.status).toBe(201);
    expect(google.body.provider).toMatchObject({ preset: 'google', issuerUrl: 'https://accounts.google.com' });
    expect((await p.http.delete(`/api/admin/sso-providers/${google.body.provider.id}`, { token: admin.accessToken })).status).toBe(204);
    expect((await p.http.get('/api/auth/sso')).body.providers).toEqual([{ slug: 'acme', name: 'Acme Okta' }]);
  });
});

describe('OpenID Connect sign-in against a local oidc-provider', () => {
  it('redirects with code, PKCE S256, state and nonce; unknown providers are 404', async () => {
    const start = await p.http.get('/api/auth/sso/acme');
    const url = new URL(start.headers.get('location')!);
    expect(`${url.origin}`).toBe(idp.issuer);
    const q = url.searchParams;
    expect(q.get('client_id')).toBe(idp.clientId);
    expect(q.get('response_type')).toBe('code');
    expect(q.get('redirect_uri')).toBe(`${p.gatewayUrl}/api/auth/sso/acme/callback`);
    expect(q.get('code_challenge_method')).toBe('S256');
    expect(q.get('code_challenge')).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(q.get('state')).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect(q.get('nonce')).toMatch(/^[A-Za-z0-9_-]{16,}$/);
    expect((await p.http.get('/api/auth/sso/nobody')).status).toBe(404);
  });

  it('creates a new user in the provider’s organization with the role its groups map to', async () => {
    const who = profile({ groups: ['sales', 'engineering'] });
    const r = await signIn(who);
    expect(r.status).toBe(302);
    const user = await me(r.location);
    expect(user).toMatchObject({ email: who.email, displayName: 'Ada Lovelace', accountType: 'sso', emailVerified: true });
    expect(user.organizations).toEqual([expect.objectContaining({ id: company.orgId, role: 'editor' })]);

    // The same subject signs in to the same user; the role follows the groups.
    const again = await signIn({ ...who, groups: ['it-admins'] });
    const second = await me(again.location);
    expect(second.id).toBe(user.id);
    expect(second.organizations[0]).toMatchObject({ id: company.orgId, role: 'admin' });
  });

  it('gives the default role without a mapped group', async () => {
    const user = await me((await signIn(profile({ groups: ['sales'] }))).location);
    expect(user.organizations[0]).toMatchObject({ id: company.orgId, role: 'viewer' });
  });

  it('links an existing account with the same verified email (same user, password still works)', async () => {
    const u = await registerUser(p.http, { label: 'linked' });
    const r = await signIn(profile({ email: u.email.toUpperCase() }));
    expect(r.status).toBe(302);
    const user = await me(r.location);
    expect(user.id).toBe(u.id);
    expect(user.organizations.map((o: { id: string }) => o.id).sort()).toEqual([u.orgId, company.orgId].sort());
    expect(user.organizations[0].id).toBe(company.orgId);
    expect((await p.http.post('/api/auth/login', { email: u.email, password: u.password })).status).toBe(200);
  });

  it('does not link when the provider has not verified the email', async () => {
    const u = await registerUser(p.http, { label: 'unverified' });
    const r = await signIn(profile({ email: u.email, email_verified: false }));
    expect(r.status).toBe(401);
    expect(r.location).toBeNull();
    expect(await p.store.repos.memberships.find(company.orgId, u.id)).toBeNull();
  });

  it('refuses emails outside the allowed domains', async () => {
    const created = await p.http.post(
      '/api/admin/sso-providers',
      providerBody({ slug: 'acme-restricted', name: 'Acme (corp only)', allowedEmailDomains: ['Corp.Example'] }),
      { token: admin.accessToken },
    );
    expect(created.status).toBe(201);
    expect(created.body.provider.allowedEmailDomains).toEqual(['corp.example']);
    expect((await signIn(profile(), 'acme-restricted')).status).toBe(403);
    const ok = await signIn(profile({ email: `ok-${randomUUID().slice(0, 6)}@corp.example` }), 'acme-restricted');
    expect(ok.status).toBe(302);
  });

  it.each([
    ['edited after signing', 'payload'],
    ['signed with a key not in the provider’s JWKS', 'foreign-key'],
  ] as const)('refuses an ID token %s', async (_label, mode) => {
    const who = profile();
    await idp.tamperNextIdToken(mode);
    const r = await signIn(who);
    expect(r.status).toBe(401);
    expect(r.body.error).toBe('Authentication Failed');
    expect(r.location).toBeNull();
    expect(await p.store.repos.users.findByEmail(who.email!)).toBeNull();
  });

  it('refuses a state that was already used', async () => {
    const r = await signIn(profile());
    expect(r.status).toBe(302);
    const replay = await fetch(r.callback, { redirect: 'manual' });
    expect(replay.status).toBe(400);
  });

  it('keeps working when the provider rotates its signing key', async () => {
    const before = idp.currentKid;
    expect((await signIn(profile())).status).toBe(302);
    await idp.rotateKeys();
    expect(idp.currentKid).not.toBe(before);
    const r = await signIn(profile());
    expect(r.status).toBe(302);
    expect((await me(r.location)).organizations[0].id).toBe(company.orgId);
  });

  it('disabling a provider closes its sign-in', async () => {
    const body = { ...providerBody(), clientSecret: undefined, enabled: false };
    const put = await p.http.request('PUT', `/api/admin/sso-providers/${providerId}`, { token: admin.accessToken, body });
    expect(put.status).toBe(200);
    expect(put.body.provider.hasClientSecret).toBe(true);
    expect((await p.http.get('/api/auth/sso/acme')).status).toBe(404);
  });
});
