import { randomUUID } from 'node:crypto';

import { LocalOidcProvider } from '../support/oidc/local-oidc-provider';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

/**
 * Security review, finding 3: discovery, JWKS, token and userinfo requests of OpenID Connect sign-in go through
 * the SSRF guard. Two local providers on 127.0.0.1: one named by SSO_ALLOWED_HOSTS, one not. The platform runs
 * with its configured OIDC client (no test replacement), so this is the wiring production has.
 */
const ADMIN_EMAIL = `root-${randomUUID().slice(0, 8)}@example.com`;
const allowed = new LocalOidcProvider();
const internal = new LocalOidcProvider();
let p: TestPlatform;
let admin: TestUser;

beforeAll(async () => {
  await allowed.reserve();
  p = await startTestPlatform({ APP_URL: 'http://app.example.test', SUPERADMIN_EMAILS: ADMIN_EMAIL, SSO_ALLOWED_HOSTS: allowed.host });
  await allowed.start([`${p.gatewayUrl}/api/auth/sso/allowed/callback`]);
  await internal.start([`${p.gatewayUrl}/api/auth/sso/internal/callback`]);
  admin = await registerUser(p.http, { email: ADMIN_EMAIL });
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await allowed.stop();
  await internal.stop();
  await p?.close();
}, BOOT_TIMEOUT_MS);

async function provider(slug: string, idp: LocalOidcProvider) {
  const created = await p.http.post(
    '/api/admin/sso-providers',
    { slug, name: slug, issuerUrl: idp.issuer, clientId: idp.clientId, clientSecret: idp.clientSecret, organizationId: admin.orgId },
    { token: admin.accessToken },
  );
  expect(created.status).toBe(201);
}

it('refuses a provider whose issuer is an internal address: its discovery document is never fetched', async () => {
  await provider('internal', internal);
  const before = await internal.requestCount();
  const start = await p.http.get('/api/auth/sso/internal');
  expect(start.status).toBe(400);
  expect(start.body).toMatchObject({ error: 'unsupported_url', message: 'The URL address is not allowed' });
  expect(start.headers.get('location')).toBeNull();
  expect(await internal.requestCount()).toBe(before);
});

it('reaches an internal provider named in SSO_ALLOWED_HOSTS', async () => {
  await provider('allowed', allowed);
  const start = await p.http.get('/api/auth/sso/allowed');
  expect(start.status).toBe(302);
  expect(new URL(start.headers.get('location')!).origin).toBe(allowed.issuer);
  expect(await allowed.requestCount()).toBeGreaterThan(0);
});
