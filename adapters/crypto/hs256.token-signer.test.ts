import { createHmac } from 'node:crypto';

import type { AccessTokenClaims, RefreshTokenClaims } from '../../core/identity/token-claims';
import { Hs256TokenSigner } from './hs256.token-signer';

const SECRET = 'unit-test-secret-0123456789abcdefghij';
const NOW = Date.UTC(2025, 0, 1, 12);
const clock = {
  ms: NOW,
  now() {
    return new Date(this.ms);
  },
};
const signer = new Hs256TokenSigner({ secret: SECRET, clock });
const iat = Math.floor(NOW / 1000);

const access: AccessTokenClaims = {
  typ: 'access',
  userId: 'u-1',
  email: 'ada@example.com',
  platformRole: 'user',
  organizations: [{ id: 'o-1', name: 'Acme', slug: 'acme', role: 'owner' }],
  iat,
  exp: iat + 3600,
};
const refresh: RefreshTokenClaims = { typ: 'refresh', userId: 'u-1', jti: 'j', fam: 'f', org: 'o-1', iat, exp: iat + 7 * 86400 };

const b64 = (v: unknown) => Buffer.from(typeof v === 'string' ? v : JSON.stringify(v)).toString('base64url');
const hmac = (alg: string, input: string, secret = SECRET) => createHmac(alg, secret).update(input).digest('base64url');
function token(header: unknown, payload: unknown, alg = 'sha256', secret = SECRET) {
  const input = `${b64(header)}.${b64(payload)}`;
  return `${input}.${hmac(alg, input, secret)}`;
}

afterEach(() => {
  clock.ms = NOW;
});

describe('Hs256TokenSigner', () => {
  it('signs a compact JWS with the HS256 header and verifies it back', async () => {
    const t = signer.sign(access);
    const [h] = t.split('.');
    expect(JSON.parse(Buffer.from(h!, 'base64url').toString())).toEqual({ alg: 'HS256', typ: 'JWT' });
    expect(await signer.verify(t, 'access')).toEqual(access);
    expect(await signer.verify(signer.sign(refresh), 'refresh')).toEqual(refresh);
  });

  it('produces tokens any standard HS256 implementation accepts', async () => {
    const t = signer.sign(access);
    const [h, p, s] = t.split('.');
    expect(s).toBe(hmac('sha256', `${h}.${p}`));
  });

  it.each([
    ['alg none, empty signature', () => `${b64({ alg: 'none', typ: 'JWT' })}.${b64(access)}.`],
    ['alg none, signed', () => token({ alg: 'none', typ: 'JWT' }, access)],
    ['alg HS512', () => token({ alg: 'HS512', typ: 'JWT' }, access, 'sha512')],
    ['alg HS384', () => token({ alg: 'HS384', typ: 'JWT' }, access, 'sha384')],
    ['alg RS256', () => token({ alg: 'RS256', typ: 'JWT' }, access)],
    ['alg hs256', () => token({ alg: 'hs256', typ: 'JWT' }, access)],
    ['alg missing', () => token({ typ: 'JWT' }, access)],
    ['alg as an array', () => token({ alg: ['HS256'], typ: 'JWT' }, access)],
    ['a crit header', () => token({ alg: 'HS256', typ: 'JWT', crit: ['exp'] }, access)],
    ['typ JWE', () => token({ alg: 'HS256', typ: 'JWE' }, access)],
    ['another key', () => token({ alg: 'HS256', typ: 'JWT' }, access, 'sha256', 'other-secret')],
    [
      'a tampered payload',
      () => {
        const [h, , s] = signer.sign(access).split('.');
        return `${h}.${b64({ ...access, platformRole: 'superadmin' })}.${s}`;
      },
    ],
    ['a truncated signature', () => signer.sign(access).slice(0, -2)],
    [
      'a non-canonical signature encoding',
      () => {
        const t = signer.sign(access);
        return `${t}=`;
      },
    ],
    ['two segments', () => signer.sign(access).split('.').slice(0, 2).join('.')],
    ['four segments', () => `${signer.sign(access)}.x`],
    ['an empty string', () => ''],
    ['garbage', () => 'not a token at all'],
    ['a header that is not JSON', () => `${b64('nope')}.${b64(access)}.${hmac('sha256', `${b64('nope')}.${b64(access)}`)}`],
    ['a payload that is a JSON array', () => token({ alg: 'HS256', typ: 'JWT' }, [1, 2])],
    ['a payload without exp', () => token({ alg: 'HS256', typ: 'JWT' }, { ...access, exp: undefined })],
    ['a payload with exp as a string', () => token({ alg: 'HS256', typ: 'JWT' }, { ...access, exp: String(iat + 3600) })],
    ['an unknown platform role', () => token({ alg: 'HS256', typ: 'JWT' }, { ...access, platformRole: 'god' })],
    ['an unknown org role', () => token({ alg: 'HS256', typ: 'JWT' }, { ...access, organizations: [{ id: 'o', role: 'emperor' }] })],
    ['an oversized token', () => 'a'.repeat(20_000)],
  ])('returns null for %s', async (_label, make) => {
    expect(await signer.verify(make(), 'access')).toBeNull();
  });

  it('refuses expired tokens (exp <= now) and accepts them just before', async () => {
    const t = signer.sign(access);
    clock.ms = (access.exp - 1) * 1000;
    expect(await signer.verify(t, 'access')).not.toBeNull();
    clock.ms = access.exp * 1000;
    expect(await signer.verify(t, 'access')).toBeNull();
    clock.ms = access.exp * 1000 + 1;
    expect(await signer.verify(t, 'access')).toBeNull();
  });

  it('refuses a token of another typ than asked (refresh as access and back)', async () => {
    expect(await signer.verify(signer.sign(refresh), 'access')).toBeNull();
    expect(await signer.verify(signer.sign(access), 'refresh')).toBeNull();
    expect(await signer.verify(token({ alg: 'HS256', typ: 'JWT' }, { ...access, typ: undefined }), 'access')).toBeNull();
  });

  it('never throws on hostile input', async () => {
    for (const bad of [undefined, null, 42, {}, '..', '.a.', 'a.b.c', '%%%.%%%.%%%'] as unknown[]) {
      await expect(signer.verify(bad as string, 'access')).resolves.toBeNull();
      expect(await signer.verify(bad as string, 'access')).toBeNull();
    }
  });

  it('refuses an empty secret at construction', async () => {
    expect(() => new Hs256TokenSigner({ secret: '', clock })).toThrow();
  });
});
