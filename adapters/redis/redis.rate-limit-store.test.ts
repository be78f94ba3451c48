import { randomUUID } from 'node:crypto';

import { Redis } from 'ioredis';

import { rateLimitStoreConformance } from '../../test/conformance/rate-limit-store.conformance';
import { type RateLimitRedisClient, RedisRateLimitStore } from './redis.rate-limit-store';

const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';
const real = process.env.TEST_REAL_SERVICES === '1';
const sleep = (ms: number) => new Promise<void>((r) => setTimeout(r, ms));

(real ? describe : describe.skip)('RedisRateLimitStore (real Redis)', () => {
  const prefixes: string[] = [];
  afterAll(async () => {
    const redis = new Redis(REDIS_URL);
    for (const prefix of prefixes) {
      const keys = await redis.keys(`${prefix}*`);
      if (keys.length) await redis.del(...keys);
    }
    await redis.quit();
  });

  rateLimitStoreConformance('redis', async () => {
    const prefix = `test:gateway-ratelimit:${randomUUID()}:`;
    prefixes.push(prefix);
    return { store: new RedisRateLimitStore({ url: REDIS_URL, prefix }), advance: sleep };
  });

  it('sets the window expiry on the first hit (atomic INCR + PEXPIRE)', async () => {
    const prefix = `test:gateway-ratelimit:${randomUUID()}:`;
    prefixes.push(prefix);
    const store = new RedisRateLimitStore({ url: REDIS_URL, prefix });
    const redis = new Redis(REDIS_URL);
    try {
      await store.hit('ip:1.2.3.4', 5, 30);
      const ttl = await redis.pttl(`${prefix}30:ip:1.2.3.4`);
      expect(ttl).toBeGreaterThan(0);
      expect(ttl).toBeLessThanOrEqual(30_000);
      // a key that lost its TTL gets it back instead of counting forever
      await redis.persist(`${prefix}30:ip:1.2.3.4`);
      await store.hit('ip:1.2.3.4', 5, 30);
      expect(await redis.pttl(`${prefix}30:ip:1.2.3.4`)).toBeGreaterThan(0);
    } finally {
      await store.close();
      await redis.quit();
    }
  });
});

describe('RedisRateLimitStore with an injected client', () => {
  it('loads the script with EVAL on NOSCRIPT, then uses EVALSHA, and leaves the client open', async () => {
    const calls: string[] = [];
    let loaded = false;
    const client: RateLimitRedisClient = {
      evalsha: async (_sha, _n, key) => {
        calls.push(`evalsha ${String(key)}`);
        if (!loaded) throw new Error('NOSCRIPT No matching script. Please use EVAL.');
        return [2, 42_000];
      },
      eval: async (_script, _n, key, windowMs) => {
        calls.push(`eval ${String(key)} ${String(windowMs)}`);
        loaded = true;
        return [1, 60_000];
      },
      quit: async () => {
        calls.push('quit');
      },
    };
    const store = new RedisRateLimitStore({ client, prefix: 'p:' });
    expect(await store.hit('k', 1, 60)).toEqual({ allowed: true, limit: 1, remaining: 0, retryAfterSeconds: 0 });
    expect(await store.hit('k', 1, 60)).toEqual({ allowed: false, limit: 1, remaining: 0, retryAfterSeconds: 42 });
    await store.close();
    expect(calls).toEqual(['evalsha p:60:k', 'eval p:60:k 60000', 'evalsha p:60:k']);
  });

  it('propagates connection errors (the gateway decides whether to fail open)', async () => {
    const client: RateLimitRedisClient = {
      evalsha: async () => {
        throw new Error('ECONNREFUSED');
      },
      eval: async () => [1, 1],
      quit: async () => undefined,
    };
    await expect(new RedisRateLimitStore({ client }).hit('k', 1, 1)).rejects.toThrow('ECONNREFUSED');
  });
});
