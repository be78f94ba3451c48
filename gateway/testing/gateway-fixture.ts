import { createHmac } from 'node:crypto';

import { Hs256TokenSigner } from '../../adapters/crypto/hs256.token-signer';
import { InProcessRateLimitStore } from '../../adapters/memory/in-process.rate-limit-store';
import type { AccessTokenClaims, ApiKeyPrincipal, RefreshTokenClaims } from '../../core/identity/token-claims';
import { createGateway, type Gateway } from '../create-gateway';
import type { GatewayOptions } from '../gateway-options';
import { type FakeUpstream, startFakeUpstream } from './fake-upstream';

export const JWT_SECRET = 'test-jwt-secret-0123456789abcdef0123456789';
export const INTERNAL_SECRET = 'test-internal-secret-fedcba9876543210';
export const USER_ID = '3f1c2a9e-8d4b-4c61-9a57-0b6e2f7d1c11';
export const ORG_ID = '9b2d7e41-5c3a-4f88-b1e6-27d4c0a8f932';
export const OTHER_ORG_ID = '0e6a5b1c-2d3f-4a47-8b9c-d1e2f3a4b5c6';
export const API_KEY = 'ak_live_0123456789abcdef';
export const API_KEY_PRINCIPAL: ApiKeyPrincipal = {
  keyId: 'c0ffee00-1111-4222-8333-444455556666',
  organizationId: ORG_ID,
  scopes: ['agents:write', 'contacts:read'],
};

export class FakeClock {
  constructor(public ms = Date.UTC(2025, 5, 1, 12)) {}
  now = () => new Date(this.ms);
}

export function accessClaims(overrides: Partial<AccessTokenClaims> = {}, nowMs = Date.UTC(2025, 5, 1, 12)): AccessTokenClaims {
  const iat = Math.floor(nowMs / 1000);
  return {
    typ: 'access',
    userId: USER_ID,
    email: 'ada@example.com',
    platformRole: 'user',
    organizations: [
      { id: ORG_ID, name: 'Acme', slug: 'acme', role: 'admin' },
      { id: OTHER_ORG_ID, name: 'Other', slug: 'other', role: 'viewer' },
    ],
    iat,
    exp: iat + 24 * 3600,
    ...overrides,
  };
}

export function refreshClaims(nowMs = Date.UTC(2025, 5, 1, 12)): RefreshTokenClaims {
  const iat = Math.floor(nowMs / 1000);
  return { typ: 'refresh', userId: USER_ID, jti: 'jti-1', fam: 'fam-1', org: ORG_ID, iat, exp: iat + 7 * 86400 };
}

const b64 = (v: unknown) => Buffer.from(JSON.stringify(v)).toString('base64url');

/** A token with any header, signed with HMAC-`hash` (or unsigned when hash is null). */
export function forgeToken(header: Record<string, unknown>, payload: unknown, secret: string, hash: 'sha256' | 'sha512' | null): string {
  const input = `${b64(header)}.${b64(payload)}`;
  const sig = hash ? createHmac(hash, secret).update(input).digest('base64url') : '';
  return `${input}.${sig}`;
}

export interface GatewayFixture {
  gateway: Gateway;
  port: number;
  upstream: FakeUpstream;
  clock: FakeClock;
  signer: Hs256TokenSigner;
  store: InProcessRateLimitStore;
  accessToken: string;
  close(): Promise<void>;
}

export async function startGatewayFixture(overrides: Partial<GatewayOptions> = {}): Promise<GatewayFixture> {
  const upstream = await startFakeUpstream();
  const clock = new FakeClock();
  const signer = new Hs256TokenSigner({ secret: JWT_SECRET, clock });
  const store = new InProcessRateLimitStore({ clock });
  const gateway = createGateway({
    upstream: { host: '127.0.0.1', port: upstream.port },
    tokenSigner: signer,
    verifyApiKey: async (raw) => (raw === API_KEY ? API_KEY_PRINCIPAL : null),
    rateLimitStore: store,
    limits: { perIp: { limit: 10_000, windowSeconds: 60 }, perPrincipal: { limit: 10_000, windowSeconds: 60 } },
    internalSecret: INTERNAL_SECRET,
    clock,
    ...overrides,
  });
  const { port } = await gateway.listen(0, '127.0.0.1');
  return {
    gateway,
    port,
    upstream,
    clock,
    signer,
    store,
    accessToken: signer.sign(accessClaims({}, clock.ms)),
    close: async () => {
      await gateway.close(0);
      await upstream.close();
    },
  };
}
