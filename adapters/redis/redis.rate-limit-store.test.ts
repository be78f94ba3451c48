import { randomUUID } from 'node:crypto';

import { Redis } from 'ioredis';

import { rateLimitStoreConformance } from '../../test/conformance/rate-limit-store.conformance';
import { RedisRateLimitStore } from './redis.rate-limit-store';

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
    const store = new RedisRateLimitStore({ url: REDIS_URL, prefix });
    expect(await store.ready()).toBe(true);
    return { store, advance: sleep };
  });

  it('shares one limit between two stores (two replicas) on the same Redis', async () => {
    const prefix = `test:gateway-ratelimit:${randomUUID()}:`;
    prefixes.push(prefix);
    const a = new RedisRateLimitStore({ url: REDIS_URL, prefix });
    const b = new RedisRateLimitStore({ url: REDIS_URL, prefix });
    try {
      expect(await a.ready()).toBe(true);
      expect(await b.ready()).toBe(true);
      const decisions = await Promise.all(Array.from({ length: 60 }, (_, i) => (i % 2 ? a : b).hit('user:1', 25, 60)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(25);
    } finally {
      await a.close();
      await b.close();
    }
  });
  it('counts a hit in one round trip, on the keys rate-limiter-flexible reads, with their expiry', async () => {
    const prefix = `test:gateway-ratelimit:${randomUUID()}:`;
    prefixes.push(prefix);
    const client = new Redis(REDIS_URL);
    let commands = 0;
    const send = client.sendCommand.bind(client);
    client.sendCommand = (...args: Parameters<typeof send>) => {
      commands++;
      return send(...args);
    };
    // halfway through a minute window, so the previous window weighs exactly half
    const index = Math.floor(Date.now() / 60_000);
    const clock = { now: () => new Date(index * 60_000 + 30_000) };
    const store = new RedisRateLimitStore({ client, prefix, clock });
    try {
      expect(await store.ready()).toBe(true);
      // the previous window, as another replica counted it: 40 hits, half of which still weigh
      await client.set(`${prefix}60000:user:2:${index - 1}`, '40');
      // a current key that lost its expiry is given one back
      await client.set(`${prefix}60000:user:2:${index}`, '0');
      commands = 0;
      const first = await store.hit('user:2', 50, 60);
      expect(commands).toBe(1);
      expect(first).toMatchObject({ allowed: true, remaining: 29 }); // 50 - (40 × 0.5 + 1)
      expect(await client.get(`${prefix}60000:user:2:${index}`)).toBe('1');
      expect(await client.ttl(`${prefix}60000:user:2:${index}`)).toBeGreaterThan(0);
      // 29 more fit; the refused hits are given back, so the counter stays at 30
      const decisions = [];
      for (let i = 0; i < 60; i++) decisions.push(await store.hit('user:2', 50, 60));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(29);
      expect(await client.get(`${prefix}60000:user:2:${index}`)).toBe('30');
    } finally {
      await store.close();
      await client.quit();
    }
  });
});

describe('RedisRateLimitStore when Redis is unreachable', () => {
  it('keeps limiting with the in-process insurance limiter instead of failing open', async () => {
    const fallbacks: unknown[] = [];
    // Nothing listens on port 1: every command fails at once (no offline queue).
    const store = new RedisRateLimitStore({ url: 'redis://127.0.0.1:1', prefix: 'p:', onFallback: (e) => fallbacks.push(e) });
    try {
      expect(await store.ready(200)).toBe(false);
      const decisions = [];
      for (let i = 0; i < 5; i++) decisions.push(await store.hit('ip:1.2.3.4', 3, 60));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false, false]);
      expect(decisions[3]!.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect((await store.peek('ip:1.2.3.4', 3, 60)).allowed).toBe(false);
      await store.reset('ip:1.2.3.4', 60);
      expect((await store.hit('ip:1.2.3.4', 3, 60)).allowed).toBe(true);
    } finally {
      await store.close();
    }
  });
});
