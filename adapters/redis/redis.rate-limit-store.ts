import type { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis } from 'rate-limiter-flexible';

import type { Clock } from '../../core/ports/clock';
import { DomainError } from '../../core/shared/errors';
import {
  type SlidingWindow,
  SlidingWindowRateLimitStore,
  UNBOUNDED_POINTS,
} from '../rate-limiter-flexible/sliding-window.rate-limit-store';

/**
 * One hit in one round trip: rate-limiter-flexible's own consume (SET NX EX, INCRBY, a missing TTL restored)
 * on the current window's key, and a GET of the previous window's, on the keys it names, so its get, reward
 * and delete keep working on them.
 */
const SLIDING_HIT = `redis.call('set', KEYS[1], 0, 'EX', ARGV[1], 'NX')
local current = redis.call('incrby', KEYS[1], tonumber(ARGV[2] or '1'))
if redis.call('ttl', KEYS[1]) == -1 then redis.call('expire', KEYS[1], ARGV[1]) end
return {current, tonumber(redis.call('get', KEYS[2]) or '0')}`;

type WithSlidingHit = Redis & {
  slidingWindowHit(current: string, previous: string, ttlSeconds: number, cost: number): Promise<[number, number]>;
};

export interface RedisRateLimitStoreOptions {
  /** redis://[user:pass@]host:port[/db]; ignored when `client` is given. */
  url?: string;
  /** Key prefix (default `ratelimit:`). */
  prefix?: string;
  /** Injected ioredis client; the store then does not close it. */
  client?: Redis;
  clock?: Clock;
  /** Told when Redis fails and the in-process insurance limiter answers instead. */
  onFallback?: (err: unknown) => void;
}

export const redisRateLimitStoreOptionsSchema = {
  type: 'object',
  properties: {
    url: { type: 'string', pattern: '^rediss?://' },
    prefix: { type: 'string', maxLength: 200 },
  },
  required: ['url'],
  additionalProperties: false,
} as const;

/**
 * Sliding-window limits shared by every replica through Redis (rate-limiter-flexible's atomic counters).
 * When Redis is unreachable each counter falls back to an in-process insurance limiter, so the limits keep
 * holding per process instead of failing open; commands are not queued while disconnected.
 */
export class RedisRateLimitStore extends SlidingWindowRateLimitStore {
  private readonly client: WithSlidingHit;
  private readonly onFallback?: (err: unknown) => void;

  constructor(options: RedisRateLimitStoreOptions) {
    let client: Redis;
    let owns = false;
    if (options.client) client = options.client;
    else {
      if (!options.url) throw new DomainError('NOT_CONFIGURED', 'RedisRateLimitStore needs a url or a client');
      // Required here so ioredis loads only when this adapter is selected.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { Redis: RedisClient } = require('ioredis') as typeof import('ioredis');
      client = new RedisClient(options.url, { maxRetriesPerRequest: 1, enableOfflineQueue: false, connectTimeout: 2000 });
      client.on('error', (err) => options.onFallback?.(err)); // reconnects on its own; the insurance limiter answers meanwhile
      owns = true;
    }
    const prefix = options.prefix ?? 'ratelimit:';
    super(
      'redis',
      (windowPrefix, ttlSeconds) => {
        const keyPrefix = `${prefix}${windowPrefix}`;
        return new RateLimiterRedis({
          storeClient: client,
          keyPrefix,
          points: UNBOUNDED_POINTS,
          duration: ttlSeconds,
          rejectIfRedisNotReady: true,
          insuranceLimiter: new RateLimiterMemory({ keyPrefix, points: UNBOUNDED_POINTS, duration: ttlSeconds }),
        });
      },
      {
        clock: options.clock,
        onClose: async () => {
          if (owns) await client.quit().catch(() => client.disconnect());
        },
      },
    );
    client.defineCommand('slidingWindowHit', { numberOfKeys: 2, lua: SLIDING_HIT });
    this.client = client as WithSlidingHit;
    this.onFallback = options.onFallback;
  }

  /**
   * One script call instead of rate-limiter-flexible's two (a consume script, then a MULTI to read the previous
   * window): the gateway hits twice a request, and those round trips were its largest cost behind a shared
   * Redis. While Redis is not ready, or the call fails, the counters' insurance limiter counts instead.
   */
  protected override async hitCounts(w: SlidingWindow, cost = 1): Promise<{ current: number; previous: number }> {
    if (this.client.status !== 'ready') return super.hitCounts(w, cost);
    try {
      const [current, previous] = await this.client.slidingWindowHit(
        w.counter.getKey(w.currentKey),
        w.counter.getKey(w.previousKey),
        w.ttlSeconds,
        cost,
      );
      return { current, previous: Math.max(0, previous) };
    } catch (err) {
      this.onFallback?.(err);
      return super.hitCounts(w, cost);
    }
  }

  /**
   * Waits until Redis answers (true) or `timeoutMs` passes (false): until then hits are counted by the
   * insurance limiter of this process only, so boot waits for it.
   */
  async ready(timeoutMs = 5000): Promise<boolean> {
    if (this.client.status === 'ready') return true;
    return new Promise<boolean>((resolve) => {
      const done = (ok: boolean) => {
        clearTimeout(timer);
        this.client.off('ready', onReady);
        resolve(ok);
      };
      const onReady = () => done(true);
      const timer = setTimeout(() => done(false), timeoutMs);
      this.client.once('ready', onReady);
    });
  }
}
