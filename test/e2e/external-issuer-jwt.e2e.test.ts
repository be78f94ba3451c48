import { SignJWT } from 'jose';

import { type IssuerKey, LocalJwtIssuer } from '../support/local-jwt-issuer';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser, uniqueEmail } from '../support/users';

const AUDIENCE = 'https://api.platform.example.test';
const issuer = new LocalJwtIssuer();
let p: TestPlatform;
let ada: TestUser;
let rsa: IssuerKey;
let ec: IssuerKey;
/** What the gateway answers an invalid platform access token. */
let refusal: { status: number; body: unknown };

beforeAll(async () => {
  await issuer.start();
  rsa = await issuer.newKey('RS256', 'rsa-1');
  ec = await issuer.newKey('ES256', 'ec-1');
  issuer.published = [rsa, ec];
  // The JWKS URL is left to discovery.
  p = await startTestPlatform({ EXTERNAL_JWT_ISSUER: issuer.url, EXTERNAL_JWT_AUDIENCE: AUDIENCE });
  ada = await registerUser(p.http, { label: 'ext' });
  const bad = await p.http.get('/api/auth/me', { token: `${ada.accessToken.slice(0, -4)}AAAA` });
  refusal = { status: bad.status, body: bad.body };
}, BOOT_TIMEOUT_MS);
afterAll(async () => {
  await p?.close();
  await issuer.close();
}, BOOT_TIMEOUT_MS);

const me = (token: string) => p.http.get('/api/auth/me', { token });
const seconds = () => Math.floor(Date.now() / 1000);

/** The body without its per-request id. */
const sansRequestId = (body: unknown) => {
  const { requestId, ...rest } = body as Record<string, unknown>;
  expect(typeof requestId === 'string' || requestId === undefined).toBe(true);
  return rest;
};

async function expectRefused(token: string, label: string) {
  const r = await me(token);
  expect({ label, status: r.status, body: sansRequestId(r.body) }).toEqual({
    label,
    status: refusal.status,
    body: sansRequestId(refusal.body),
  });
}

describe('bearer tokens of an external issuer at the gateway', () => {
  it('refuses an invalid platform token with 401 (the body every refusal below must equal)', () => {
    expect(refusal.status).toBe(401);
    expect(refusal.body).toMatchObject({ error: 'Authentication Failed' });
  });

  it('accepts RS256 and ES256 tokens of the issuer as the user with that email, like a platform token', async () => {
    const own = await me(ada.accessToken);
    expect(own.status).toBe(200);
    for (const key of [rsa, ec]) {
      const token = await issuer.sign(key, { sub: 'idp-ada', email: ada.email.toUpperCase() }, AUDIENCE);
      const r = await me(token);
      expect({ alg: key.alg, status: r.status }).toEqual({ alg: key.alg, status: 200 });
      expect(r.body.user).toEqual(own.body.user);
    }
    // the forwarded identity carries the user's organization and role: an org-scoped read works
    const token = await issuer.sign(rsa, { email: ada.email }, AUDIENCE);
    const members = await p.http.get(`/api/organizations/${ada.orgId}/members`, { token });
    expect(members.status).toBe(200);
  });

  it('maps through the audience array and keeps the platform tokens working', async () => {
    const token = await issuer.sign(rsa, { email: ada.email, aud: ['other-api', AUDIENCE] }, AUDIENCE);
    expect((await me(token)).status).toBe(200);
    expect((await me(ada.accessToken)).status).toBe(200);
  });

  it('answers an unknown email, or one the issuer marks unverified, like any invalid token', async () => {
    await expectRefused(await issuer.sign(rsa, { email: uniqueEmail('nobody') }, AUDIENCE), 'unknown email');
    await expectRefused(await issuer.sign(rsa, { email: ada.email, email_verified: false }, AUDIENCE), 'email_verified false');
    await expectRefused(await issuer.sign(rsa, { sub: 'no-email' }, AUDIENCE), 'no email claim');
  });

  it('refuses the wrong issuer, the wrong audience, an expired token and a token without expiry', async () => {
    await expectRefused(await issuer.sign(rsa, { email: ada.email, iss: 'https://evil.example.test' }, AUDIENCE), 'issuer');
    await expectRefused(await issuer.sign(rsa, { email: ada.email }, 'https://another-api.example.test'), 'audience');
    await expectRefused(await issuer.sign(rsa, { email: ada.email, exp: seconds() - 3600 }, AUDIENCE), 'expired');
    const noExp = await new SignJWT({ iss: issuer.url, aud: AUDIENCE, email: ada.email })
      .setProtectedHeader({ alg: 'RS256', kid: rsa.kid })
      .sign(rsa.pair.privateKey);
    await expectRefused(noExp, 'no exp');
  });

  it('refuses tampered tokens, unpublished keys, alg none and HS256 signed with the public key', async () => {
    const valid = await issuer.sign(rsa, { email: uniqueEmail('victim') }, AUDIENCE);
    const [header, , signature] = valid.split('.');
    const payload = Buffer.from(JSON.stringify({ iss: issuer.url, aud: AUDIENCE, email: ada.email, exp: seconds() + 600 })).toString(
      'base64url',
    );
    await expectRefused(`${header}.${payload}.${signature}`, 'payload swapped');

    const stranger = await issuer.newKey('RS256', 'rsa-unpublished');
    await expectRefused(await issuer.sign(stranger, { email: ada.email }, AUDIENCE), 'unknown kid');
    const impostor = await issuer.newKey('RS256', rsa.kid); // a published kid, another key
    await expectRefused(await issuer.sign(impostor, { email: ada.email }, AUDIENCE), 'same kid, other key');

    const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');
    const claims = b64({ iss: issuer.url, aud: AUDIENCE, email: ada.email, exp: seconds() + 600 });
    await expectRefused(`${b64({ alg: 'none', typ: 'JWT' })}.${claims}.`, 'alg none');
    for (const secret of [await issuer.publicPem(rsa), JSON.stringify(rsa.jwk)]) {
      const hs = await new SignJWT({ iss: issuer.url, aud: AUDIENCE, email: ada.email })
        .setProtectedHeader({ alg: 'HS256', kid: rsa.kid })
        .setExpirationTime('1h')
        .sign(new TextEncoder().encode(secret));
      await expectRefused(hs, 'HS256 with the public key');
    }
  });
});
