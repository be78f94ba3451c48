import { ExternalIssuerTokenVerifier } from '../adapters/crypto/external-issuer.token-verifier';
import { externalAccessClaims } from '../core/identity/external-token';
import { IDENTITY_HEADERS, verifyIdentity } from '../core/identity/gateway-signature';
import type { OrgRole } from '../core/identity/roles';
import type { User } from '../core/identity/user';
import type { MembershipWithOrganization } from '../core/organizations/organization';
import type { Repositories } from '../core/ports/repositories';
import { type IssuerKey, LocalJwtIssuer } from '../test/support/local-jwt-issuer';
import { call } from './testing/fake-upstream';
import { accessClaims, type GatewayFixture, INTERNAL_SECRET, ORG_ID, startGatewayFixture, USER_ID } from './testing/gateway-fixture';

const AUDIENCE = 'platform-api';
const issuer = new LocalJwtIssuer();
let key: IssuerKey;
let fx: GatewayFixture;
/** The user store the mapping reads: Ada, an admin of Acme (the role the tests change). */
let adaRole: OrgRole = 'admin';
let issuerDown = false;

const ada = { id: USER_ID, email: 'ada@example.com', platformRole: 'user', status: 'active', tokenVersion: 0 } as User;
const repos = {
  users: { findByEmail: async (email: string) => (email === ada.email ? ada : null) },
  memberships: {
    listForUser: async () => [{ role: adaRole, organization: { id: ORG_ID, name: 'Acme', slug: 'acme' } }] as MembershipWithOrganization[],
  },
} as unknown as Pick<Repositories, 'users' | 'memberships'>;

beforeAll(async () => {
  await issuer.start();
  key = await issuer.newKey('RS256', 'k1');
  issuer.published = [key];
  const live = new ExternalIssuerTokenVerifier({ issuer: issuer.url, audience: AUDIENCE, clock: { now: () => fx.clock.now() } });
  fx = await startGatewayFixture({
    externalAccessClaims: async (token) => {
      const verifier = issuerDown ? new ExternalIssuerTokenVerifier({ issuer: 'http://127.0.0.1:1', audience: AUDIENCE }) : live;
      return externalAccessClaims(repos, verifier, token, fx.clock.now());
    },
  });
});
afterAll(async () => {
  await fx.close();
  await issuer.close();
});

const identityOf = (r: Awaited<ReturnType<typeof call>>) =>
  verifyIdentity(INTERNAL_SECRET, r.json.headers, 'GET', '/api/bots', fx.clock.ms)?.identity ?? null;

describe('gateway: bearer tokens of an external issuer', () => {
  it('forwards the mapped user exactly as it forwards a platform token of that user', async () => {
    const platform = fx.signer.sign(
      accessClaims({ organizations: [{ id: ORG_ID, name: 'Acme', slug: 'acme', role: 'admin' }] }, fx.clock.ms),
    );
    const external = await issuer.sign(key, { email: ada.email }, AUDIENCE);
    const viaPlatform = await call(fx.port, { path: '/api/bots', headers: { authorization: `Bearer ${platform}` } });
    const viaExternal = await call(fx.port, { path: '/api/bots', headers: { authorization: `Bearer ${external}` } });
    expect([viaPlatform.status, viaExternal.status]).toEqual([200, 200]);
    expect(identityOf(viaExternal)).toEqual(identityOf(viaPlatform));
    expect(identityOf(viaExternal)).toMatchObject({ userId: USER_ID, organizationId: ORG_ID, orgRole: 'admin', email: ada.email });
    // and the forwarded headers are the same set
    const named = (h: Record<string, unknown>) => IDENTITY_HEADERS.filter((n) => n in h).sort();
    expect(named(viaExternal.json.headers)).toEqual(named(viaPlatform.json.headers));
  });

  it('re-reads the user after a minute in its token cache: a role change reaches the gateway', async () => {
    const token = await issuer.sign(key, { email: ada.email }, AUDIENCE);
    const headers = { authorization: `Bearer ${token}` };
    expect(identityOf(await call(fx.port, { path: '/api/bots', headers }))?.orgRole).toBe('admin');
    adaRole = 'viewer';
    try {
      expect(identityOf(await call(fx.port, { path: '/api/bots', headers }))?.orgRole).toBe('admin'); // cached
      fx.clock.ms += 61_000;
      expect(identityOf(await call(fx.port, { path: '/api/bots', headers }))?.orgRole).toBe('viewer');
    } finally {
      adaRole = 'admin';
      fx.clock.ms -= 61_000;
    }
  });

  it('answers 503, not 401, when the issuer cannot be reached, and never reaches the backend', async () => {
    const token = await issuer.sign(key, { email: ada.email, jti: 'not-cached' }, AUDIENCE);
    const before = fx.upstream.received.length;
    issuerDown = true;
    try {
      const r = await call(fx.port, { path: '/api/bots', headers: { authorization: `Bearer ${token}` } });
      expect(r.status).toBe(503);
      expect(r.json.error).toBe('Service Unavailable');
    } finally {
      issuerDown = false;
    }
    expect(fx.upstream.received.length).toBe(before);
  });

  it('refuses garbage bearer tokens with 401 without asking the issuer twice', async () => {
    const downloads = issuer.jwksDownloads;
    for (const token of ['x', 'a.b.c', 'eyJhbGciOiJSUzI1NiJ9.e30.', `${'A'.repeat(15000)}.e30.sig`]) {
      const r = await call(fx.port, { path: '/api/bots', headers: { authorization: `Bearer ${token}` } });
      expect({ token: token.slice(0, 20), status: r.status }).toEqual({ token: token.slice(0, 20), status: 401 });
    }
    expect(issuer.jwksDownloads - downloads).toBeLessThanOrEqual(1);
  });
});
