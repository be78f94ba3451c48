import path from 'node:path';

// The v3 entry point: the package root also loads the provider Verifier, whose ESM-only deps jest cannot require.
import { MatchersV3, PactV3 } from '@pact-foundation/pact/src/v3';

import { Hs256TokenSigner } from '../adapters/crypto/hs256.token-signer';
import { InProcessRateLimitStore } from '../adapters/memory/in-process.rate-limit-store';
import { EMPTY_BODY_DIGEST, sha256Hex } from '../core/identity/gateway-signature';
import { createGateway } from './create-gateway';
import { call } from './testing/fake-upstream';
import { accessClaims, INTERNAL_SECRET, JWT_SECRET, ORG_ID, USER_ID } from './testing/gateway-fixture';

const { like, eachLike, regex, uuid } = MatchersV3;

/**
 * The gateway is the consumer of the backend: this pins the identity headers it forwards.
 * The provider ("agent-platform-api") verifies it against the real backend app; it must re-sign the
 * x-gateway-* headers in a request filter since the recorded timestamp and signature are only examples.
 */
const provider = new PactV3({
  consumer: 'agent-platform-gateway',
  provider: 'agent-platform-api',
  dir: path.resolve(__dirname, '../contracts/pacts'),
  logLevel: 'warn',
});

const HEX64 = '^[0-9a-f]{64}$';

describe('gateway → backend identity forwarding (Pact)', () => {
  it('forwards the verified identity of an access token on GET /api/auth/me', async () => {
    provider
      .given('a user with an organization')
      .uponReceiving('GET /api/auth/me with a verified access token forwarded by the gateway')
      .withRequest({
        method: 'GET',
        path: '/api/auth/me',
        headers: {
          'user-id': uuid(USER_ID),
          'organization-id': uuid(ORG_ID),
          'user-email': regex('^[^@\\s]+@[^@\\s]+$', 'ada@example.com'),
          'x-platform-role': regex('^(user|superadmin)$', 'user'),
          'x-org-role': regex('^(owner|admin|editor|member|viewer)$', 'admin'),
          'x-client-ip': regex('^[0-9a-fA-F:.]+$', '127.0.0.1'),
          'x-token-version': regex('^[0-9]{1,9}$', '0'),
          'x-gateway-timestamp': regex('^[0-9]{13}$', '1748779200000'),
          'x-gateway-nonce': regex('^[0-9a-f]{32}$', '0'.repeat(32)),
          // no body: the digest of the empty body, exactly
          'x-gateway-body-sha256': EMPTY_BODY_DIGEST,
          'x-gateway-signature': regex(HEX64, 'a'.repeat(64)),
        },
      })
      .willRespondWith({
        status: 200,
        // No header matcher: pact's own Content-Type (application/json) comparison ignores parameters such as
        // charset, whereas a regex on the header fails in the verifier once charset is present.
        body: {
          user: like({
            id: uuid(USER_ID),
            email: 'ada@example.com',
            displayName: 'Ada Lovelace',
            organizations: eachLike({ id: uuid(ORG_ID), name: 'Acme', slug: 'acme', role: 'admin' }),
          }),
        },
      });

    await provider.executeTest(async (mock) => {
      const port = Number(new URL(mock.url).port);
      await throughGateway(port, async (gatewayPort, token) => {
        const r = await call(gatewayPort, { path: '/api/auth/me', headers: { authorization: `Bearer ${token}` } });
        expect(r.status).toBe(200);
        expect(r.json.user.id).toBe(USER_ID);
        expect(r.json.user.organizations[0].id).toBe(ORG_ID);
      });
    });
  });

  it('signs the digest of a JSON body on POST /api/knowledge/kb', async () => {
    const body = JSON.stringify({ name: 'Pact KB' });
    provider
      .given('a user with an organization')
      .uponReceiving('POST /api/knowledge/kb with a JSON body whose digest the gateway signed')
      .withRequest({
        method: 'POST',
        path: '/api/knowledge/kb',
        headers: {
          'content-type': 'application/json',
          'user-id': uuid(USER_ID),
          'organization-id': uuid(ORG_ID),
          'x-org-role': regex('^(owner|admin|editor|member|viewer)$', 'admin'),
          'x-gateway-nonce': regex('^[0-9a-f]{32}$', '0'.repeat(32)),
          // the SHA-256 of exactly the bytes the client sent
          'x-gateway-body-sha256': sha256Hex(body),
          'x-gateway-signature': regex(HEX64, 'a'.repeat(64)),
        },
        body: { name: 'Pact KB' },
      })
      .willRespondWith({ status: 201, body: { knowledgeBase: like({ name: 'Pact KB', organizationId: uuid(ORG_ID) }) } });

    await provider.executeTest(async (mock) => {
      await throughGateway(Number(new URL(mock.url).port), async (gatewayPort, token) => {
        const r = await call(gatewayPort, {
          method: 'POST',
          path: '/api/knowledge/kb',
          headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
          body,
        });
        expect(r.status).toBe(201);
      });
    });
  });
});

async function throughGateway(port: number, run: (gatewayPort: number, token: string) => Promise<void>) {
  const clock = { now: () => new Date() };
  const signer = new Hs256TokenSigner({ secret: JWT_SECRET, clock });
  const gateway = createGateway({
    upstream: { host: '127.0.0.1', port },
    tokenSigner: signer,
    verifyApiKey: async () => null,
    rateLimitStore: new InProcessRateLimitStore(),
    limits: { perIp: { limit: 100, windowSeconds: 60 }, perPrincipal: { limit: 100, windowSeconds: 60 } },
    internalSecret: INTERNAL_SECRET,
    clock,
  });
  const { port: gatewayPort } = await gateway.listen(0, '127.0.0.1');
  try {
    await run(gatewayPort, signer.sign(accessClaims({}, Date.now())));
  } finally {
    await gateway.close(0);
  }
}
