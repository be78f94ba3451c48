/**
 * One gateway replica for the two-replica suite: the real createGateway with the Redis rate-limit store,
 * in front of the test's upstream. Reports its port over IPC.
 *
 *   node -r tsx/cjs gateway-replica.ts   (env: REDIS_URL, PREFIX, UPSTREAM_PORT, JWT_SECRET, INTERNAL_SECRET, LIMIT)
 */
import { Hs256TokenSigner } from '../../../adapters/crypto/hs256.token-signer';
import { RedisRateLimitStore } from '../../../adapters/redis/redis.rate-limit-store';
import { createGateway } from '../../../gateway';

async function main() {
  const env = process.env as Record<string, string>;
  const clock = { now: () => new Date() };
  const store = new RedisRateLimitStore({ url: env.REDIS_URL, prefix: env.PREFIX });
  if (!(await store.ready())) throw new Error('Redis is not reachable');
  const gateway = createGateway({
    upstream: { host: '127.0.0.1', port: Number(env.UPSTREAM_PORT) },
    tokenSigner: new Hs256TokenSigner({ secret: env.JWT_SECRET!, clock }),
    verifyApiKey: async () => null,
    rateLimitStore: store,
    limits: { perIp: { limit: 1_000_000, windowSeconds: 60 }, perPrincipal: { limit: Number(env.LIMIT), windowSeconds: 3600 } },
    internalSecret: env.INTERNAL_SECRET!,
    clock,
  });
  const { port } = await gateway.listen(0, '127.0.0.1');
  process.send?.({ port });
}

main().catch((e: unknown) => {
  console.error(e);
  process.exit(1);
});
