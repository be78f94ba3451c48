import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';

import { type IssuerKey, LocalJwtIssuer } from '../../test/support/local-jwt-issuer';
import { ExternalIssuerTokenVerifier } from './external-issuer.token-verifier';

const AUDIENCE = 'platform-api';
const issuer = new LocalJwtIssuer();
let a: IssuerKey;
let b: IssuerKey;

beforeAll(async () => {
  await issuer.start();
  a = await issuer.newKey('RS256', 'key-a');
  b = await issuer.newKey('ES256', 'key-b');
});
afterAll(() => issuer.close());
beforeEach(() => {
  issuer.published = [a];
});

const verifier = (over: Partial<ConstructorParameters<typeof ExternalIssuerTokenVerifier>[0]> = {}) =>
  new ExternalIssuerTokenVerifier({ issuer: issuer.url, audience: AUDIENCE, ...over });

describe('ExternalIssuerTokenVerifier', () => {
  it('finds the JWKS through discovery and returns the email and expiry of a valid token', async () => {
    const token = await issuer.sign(a, { email: 'ada@example.com', exp: 4_000_000_000 }, AUDIENCE);
    expect(await verifier().verify(token)).toEqual({ email: 'ada@example.com', exp: 4_000_000_000 });
  });

  it('reads the email from the configured claim, and uses a configured JWKS URL without discovery', async () => {
    const v = verifier({ emailClaim: 'upn', jwksUrl: `${issuer.url}/keys`, issuer: 'https://idp.example.test' });
    const token = await issuer.sign(a, { iss: 'https://idp.example.test', upn: 'grace@example.com', email: 'x@example.com' }, AUDIENCE);
    expect((await v.verify(token))?.email).toBe('grace@example.com');
  });

  it('follows a key rotation: the new key verifies after a refetch, the retired one no longer does', async () => {
    const v = verifier({ jwksCooldownMs: 0 });
    const oldToken = await issuer.sign(a, { email: 'ada@example.com' }, AUDIENCE);
    expect(await v.verify(oldToken)).not.toBeNull();
    issuer.published = [b];
    const newToken = await issuer.sign(b, { email: 'ada@example.com' }, AUDIENCE);
    expect(await v.verify(newToken)).not.toBeNull();
    expect(await v.verify(oldToken)).toBeNull();
  });

  it('downloads the JWKS at most once per cooldown however many unknown kids arrive', async () => {
    const v = verifier({ jwksCooldownMs: 60_000 });
    expect(await v.verify(await issuer.sign(a, { email: 'ada@example.com' }, AUDIENCE))).not.toBeNull();
    const before = issuer.jwksDownloads;
    for (let i = 0; i < 10; i++) {
      const stranger = await issuer.newKey('ES256', `random-${i}`);
      expect(await v.verify(await issuer.sign(stranger, { email: 'ada@example.com' }, AUDIENCE))).toBeNull();
    }
    expect(issuer.jwksDownloads - before).toBe(0);
  });

  it('rejects (rather than refusing the token) when the issuer cannot be reached or discovery names another issuer', async () => {
    const token = await issuer.sign(a, { email: 'ada@example.com' }, AUDIENCE);
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const deadUrl = `http://127.0.0.1:${(closed.address() as AddressInfo).port}`;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(verifier({ issuer: deadUrl }).verify(token)).rejects.toThrow();
    await expect(verifier({ issuer: deadUrl, jwksUrl: `${deadUrl}/keys` }).verify(token)).rejects.toThrow();
    await expect(verifier({ issuer: `${issuer.url}/` }).verify(token)).rejects.toThrow(/names another issuer/);
  });

  it('resolves null (never throws, which would be a 503) for malformed tokens and odd headers', async () => {
    const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
    const claims = b64({ iss: issuer.url, aud: AUDIENCE, email: 'ada@example.com', exp: 4_000_000_000 });
    const sig = (await issuer.sign(a, { email: 'ada@example.com' }, AUDIENCE)).split('.')[2];
    const tokens = [
      '',
      'x',
      'a.b.c',
      `${b64({ alg: 'RS256', kid: 42 })}.${claims}.${sig}`,
      `${b64({ alg: 'RS256', kid: a.kid, crit: ['exp'] })}.${claims}.${sig}`,
      `${b64({ alg: 'RS256', kid: a.kid, b64: false, crit: ['b64'] })}.${claims}.${sig}`,
      `${b64({ alg: 'RS256', jwk: a.jwk })}.${claims}.${sig}`,
      `${b64({ alg: 'RS256', kid: a.kid })}.${b64('not json')}.${sig}`,
      `${b64({ alg: 'ES256', kid: a.kid })}.${claims}.${sig}`,
      `${b64({ alg: 'PS256', kid: a.kid })}.${claims}.${sig}`,
    ];
    const v = verifier();
    for (const token of tokens) expect({ token, result: await v.verify(token) }).toEqual({ token, result: null });
  });

  it('refuses to start with an http issuer off the local host or without an audience', () => {
    expect(() => verifier({ issuer: 'http://idp.example.test' })).toThrow(/https/);
    expect(() => verifier({ jwksUrl: 'http://idp.example.test/keys' })).toThrow(/https/);
    expect(() => verifier({ audience: '' })).toThrow(/AUDIENCE/);
  });
});
