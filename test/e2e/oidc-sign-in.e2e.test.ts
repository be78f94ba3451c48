import { randomUUID } from 'node:crypto';

import { OpenIdClientOidc } from '../../adapters/openid-client/openid-client.oidc-client';
import { identityProviderFetcher } from '../../app/adapters-container';
import type { OidcClient } from '../../core/identity/sso/oidc-client';
import { browseTo, LocalOidcProvider, type OidcTestProfile } from '../support/oidc/local-oidc-provider';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser, uniqueEmail } from '../support/users';

const APP_URL = 'http://app.example.test';
const ADMIN_EMAIL = `root-${randomUUID().slice(0, 8)}@example.com`;
const SLUGS = ['acme', 'acme-restricted', 'org-b'];
const idp = new LocalOidcProvider();
let p: TestPlatform;
let admin: TestUser;
let company: TestUser; // owner of the organization SSO users join
let providerId: string;

beforeAll(async () => {
  // JWKS cooldown 0: a token with an unknown kid refetches at once (production waits 30 s between downloads). The
  // client is built once the platform's configuration is known, with the platform's identity fetcher (SSRF guard +
  // SSO_ALLOWED_HOSTS naming the local provider).
  await idp.reserve();
  const built: { client?: OidcClient } = {};
  const oidc: OidcClient = {
    authorizationUrl: (r) => built.client!.authorizationUrl(r),
    complete: (r) => built.client!.complete(r),
  };
  p = await startTestPlatform({ APP_URL, SUPERADMIN_EMAILS: ADMIN_EMAIL, PLAN_SEATS: '100', SSO_ALLOWED_HOSTS: idp.host }, { oidc });
  built.client = new OpenIdClientOidc({ jwksCooldownMs: 0, fetcher: identityProviderFetcher(p.config) });
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
    // The provider speaks for example.com (every test user's domain): it links and gives membership to them.
    allowedEmailDomains: ['example.com'],
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

/** `name=value` of the cookie a response sets (over plain http the state cookie is `sso_state`). */
function setCookie(r: { headers: Headers }, name: string): string | null {
  const found = r.headers.getSetCookie().find((c) => c.startsWith(`${name}=`));
  return found ? found.split(';')[0] : null;
}

/** The browser's part after the platform sent it to the provider: consent, then the callback with its cookie. */
async function complete(authorizationUrl: string, slug: string, cookie: string | null) {
  const callback = await browseTo(authorizationUrl, `${p.gatewayUrl}/api/auth/sso/${slug}/callback`);
  const r = await fetch(callback, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const text = await r.text();
  return {
    status: r.status,
    location: r.headers.get('location'),
    body: text.startsWith('{') ? JSON.parse(text) : undefined,
    callback,
    cookie,
    setCookies: r.headers.getSetCookie(),
  };
}

/** The whole browser round trip; returns the platform's answer to the callback. */
async function signIn(who: OidcTestProfile, slug = 'acme') {
  await idp.signInAs(who);
  const start = await p.http.get(`/api/auth/sso/${slug}`);
  expect(start.status).toBe(302);
  return complete(start.headers.get('location')!, slug, setCookie(start, 'sso_state'));
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

describe('account takeover through a provider that does not speak for the email (security review, finding 1)', () => {
  let orgB: TestUser; // the attacker: owner of organization B, whose provider asserts any email it likes
  let orgBProviderId: string;
  let victim: TestUser; // owner of organization A

  beforeAll(async () => {
    orgB = await registerUser(p.http, { label: 'org-b-owner', organizationName: 'Org B' });
    victim = await registerUser(p.http, { label: 'org-a-owner', organizationName: 'Org A' });
    // The default: no allowedEmailDomains.
    const created = await p.http.post(
      '/api/admin/sso-providers',
      providerBody({ slug: 'org-b', name: 'Org B IdP', organizationId: orgB.orgId, allowedEmailDomains: [], groupRoles: {} }),
      { token: admin.accessToken },
    );
    expect(created.status).toBe(201);
    orgBProviderId = created.body.provider.id;
  });

  it.each([
    ['the owner of another organization', () => victim],
    ['a superadmin', () => admin],
  ])('refuses to sign in as %s by a verified email it asserts: 409 account_exists, no session, no membership', async (_who, target) => {
    const { id, email } = target();
    const sub = `sub-${randomUUID()}`;
    const r = await signIn(profile({ sub, email, email_verified: true }), 'org-b');
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'account_exists', code: 'ACCOUNT_EXISTS' });
    expect(r.location).toBeNull();
    expect(r.setCookies.some((c) => c.startsWith('access_token='))).toBe(false);
    expect(await p.store.repos.memberships.find(orgB.orgId, id)).toBeNull();
    expect(await p.store.repos.ssoIdentities.findUserId(orgBProviderId, sub)).toBeNull();
    // The victim's password still signs in to the victim's own organizations only.
    const login = await p.http.post('/api/auth/login', { email, password: target().password });
    expect(login.body.data.user.organizations.map((o: { id: string }) => o.id)).not.toContain(orgB.orgId);
  });

  it('still creates a brand-new account, but gives no membership for an email domain the provider does not list', async () => {
    const who = profile();
    const r = await signIn(who, 'org-b');
    expect(r.status).toBe(302);
    const user = await me(r.location);
    expect(user).toMatchObject({ email: who.email, accountType: 'sso' });
    expect(user.organizations).toEqual([]);
  });

  it('links the provider to the signed-in user who starts POST /api/auth/sso/:slug/link; later sign-ins reach that user', async () => {
    const u = await registerUser(p.http, { label: 'linker' });
    const sub = `sub-${randomUUID()}`;
    expect((await p.http.post('/api/auth/sso/org-b/link', {})).status).toBe(401);
    const start = await p.http.post('/api/auth/sso/org-b/link', {}, { token: u.accessToken });
    expect(start.status).toBe(200);
    expect(new URL(start.body.authorizationUrl).origin).toBe(idp.issuer);
    // The IdP account may carry another address: the user chose to link it.
    await idp.signInAs(profile({ sub, email: uniqueEmail('elsewhere') }));
    const linked = await complete(start.body.authorizationUrl, 'org-b', setCookie(start, 'sso_state'));
    expect(linked.status).toBe(302);
    const user = await me(linked.location);
    expect(user.id).toBe(u.id);
    expect(await p.store.repos.ssoIdentities.findUserId(orgBProviderId, sub)).toBe(u.id);
    expect(await p.store.repos.memberships.find(orgB.orgId, u.id)).toBeNull(); // org-b lists no domain
    const again = await signIn(profile({ sub, email: uniqueEmail('elsewhere') }), 'org-b');
    expect(again.status).toBe(302);
    expect((await me(again.location)).id).toBe(u.id);

    // Another user cannot take over an identity linked to someone else.
    const other = await registerUser(p.http, { label: 'other-linker' });
    const steal = await p.http.post('/api/auth/sso/org-b/link', {}, { token: other.accessToken });
    await idp.signInAs(profile({ sub }));
    const refused = await complete(steal.body.authorizationUrl, 'org-b', setCookie(steal, 'sso_state'));
    expect(refused.status).toBe(409);
    expect(refused.body.error).toBe('account_exists');
    expect(await p.store.repos.ssoIdentities.findUserId(orgBProviderId, sub)).toBe(u.id);
  });

  it('through a provider that lists the domain, a link gives the membership, audited', async () => {
    const u = await registerUser(p.http, { label: 'linker-acme' });
    const start = await p.http.post('/api/auth/sso/acme/link', {}, { token: u.accessToken });
    await idp.signInAs(profile({ email: u.email, groups: ['engineering'] }));
    const r = await complete(start.body.authorizationUrl, 'acme', setCookie(start, 'sso_state'));
    expect(r.status).toBe(302);
    expect((await me(r.location)).organizations[0]).toMatchObject({ id: company.orgId, role: 'editor' });
    const { items } = await p.store.repos.audit.list(company.orgId, { limit: 10, offset: 0, action: 'member.join_sso', resourceId: u.id });
    expect(items).toEqual([
      expect.objectContaining({ actorId: u.id, metadata: expect.objectContaining({ provider: 'acme', role: 'editor' }) }),
    ]);
  });
});

describe('login CSRF: the state is bound to the browser that started the flow (security review, finding 2)', () => {
  it('sets the state cookie HttpOnly, SameSite=Lax, Path=/ (not Secure, no __Host- prefix, over plain http)', async () => {
    const start = await p.http.get('/api/auth/sso/acme');
    const cookie = start.headers.getSetCookie().find((c) => c.startsWith('sso_state='))!;
    expect(cookie).toBeDefined();
    expect(cookie.split('=')[1].split(';')[0]).toBe(new URL(start.headers.get('location')!).searchParams.get('state'));
    expect(cookie).toMatch(/; Path=\//);
    expect(cookie).toMatch(/; HttpOnly/);
    expect(cookie).toMatch(/; SameSite=Lax/);
    expect(cookie).not.toMatch(/; Secure/);
  });

  it('refuses a callback started by the attacker’s browser and opened by the victim’s (no or another cookie): 400, no session', async () => {
    // The attacker signs in at the provider with their own account and stops before the callback.
    const attacker = profile();
    await idp.signInAs(attacker);
    const attackerStart = await p.http.get('/api/auth/sso/acme');
    const callback = await browseTo(attackerStart.headers.get('location')!, `${p.gatewayUrl}/api/auth/sso/acme/callback`);
    // The victim's browser: no state cookie, or the cookie of a sign-in of its own.
    const victimStart = await p.http.get('/api/auth/sso/acme');
    for (const headers of [{}, { cookie: setCookie(victimStart, 'sso_state')! }] as Record<string, string>[]) {
      const r = await fetch(callback, { redirect: 'manual', headers });
      expect(r.status).toBe(400);
      expect(r.headers.get('location')).toBeNull();
      expect(r.headers.getSetCookie().some((c) => c.startsWith('access_token='))).toBe(false);
    }
    expect(await p.store.repos.users.findByEmail(attacker.email!)).toBeNull();
    // The browser that started it completes, and the cookie is cleared.
    const own = await fetch(callback, { redirect: 'manual', headers: { cookie: setCookie(attackerStart, 'sso_state')! } });
    expect(own.status).toBe(302);
    expect(own.headers.getSetCookie().find((c) => c.startsWith('sso_state='))).toMatch(/^sso_state=;.*Expires=Thu, 01 Jan 1970/);
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

  it('does not link when the provider has not verified the email, although it lists the domain (409 account_exists)', async () => {
    const u = await registerUser(p.http, { label: 'unverified' });
    const r = await signIn(profile({ email: u.email, email_verified: false }));
    expect(r.status).toBe(409);
    expect(r.body).toMatchObject({ error: 'account_exists', code: 'ACCOUNT_EXISTS' });
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
    const replay = await fetch(r.callback, { redirect: 'manual', headers: { cookie: r.cookie! } });
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
