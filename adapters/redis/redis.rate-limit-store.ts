import { createHash } from 'node:crypto';

import type { RateLimitDecision, RateLimitStore } from '../../core/ports/rate-limit-store';
import { DomainError } from '../../core/shared/errors';

/** The few commands the store needs; an ioredis `Redis` satisfies it, and tests can pass a fake. */
export interface RateLimitRedisClient {
  evalsha(sha1: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  eval(script: string, numKeys: number, ...args: (string | number)[]): Promise<unknown>;
  quit(): Promise<unknown>;
}

export interface RedisRateLimitStoreOptions {
  /** redis://[user:pass@]host:port[/db]; ignored when `client` is given. */
  url?: string;
  /** Key prefix (default `ratelimit:`). */
  prefix?: string;
  /** Injected client; the store then does not close it. */
  client?: RateLimitRedisClient;
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
 * INCR and PEXPIRE in one atomic script: the first hit of a window sets its expiry. A key that somehow lost its
 * TTL gets it back, so a counter can never stick forever. Returns [count, pttl].
 */
export const FIXED_WINDOW_SCRIPT = `
local count = redis.call('INCR', KEYS[1])
if count == 1 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  return {count, tonumber(ARGV[1])}
end
local ttl = redis.call('PTTL', KEYS[1])
if ttl < 0 then
  redis.call('PEXPIRE', KEYS[1], ARGV[1])
  ttl = tonumber(ARGV[1])
end
return {count, ttl}
`;
const SCRIPT_SHA = createHash('sha1').update(FIXED_WINDOW_SCRIPT).digest('hex');

export class RedisRateLimitStore implements RateLimitStore {
  readonly id = 'redis';
  private readonly client: RateLimitRedisClient;
  private readonly ownsClient: boolean;
  private readonly prefix: string;

  constructor(options: RedisRateLimitStoreOptions) {
    this.prefix = options.prefix ?? 'ratelimit:';
    if (options.client) {
      this.client = options.client;
      this.ownsClient = false;
    } else {
      if (!options.url) throw new DomainError('NOT_CONFIGURED', 'RedisRateLimitStore needs a url or a client');
      // Required here so ioredis loads only when this adapter is selected.
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { Redis } = require('ioredis') as typeof import('ioredis');
      this.client = new Redis(options.url, { maxRetriesPerRequest: 1, enableOfflineQueue: true, lazyConnect: false });
      this.ownsClient = true;
    }
  }

  async hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const redisKey = `${this.prefix}${windowSeconds}:${key}`;
    const windowMs = Math.max(1, Math.round(windowSeconds * 1000));
    let reply: unknown;
    try {
      reply = await this.client.evalsha(SCRIPT_SHA, 1, redisKey, windowMs);
    } catch (err) {
      if (!String((err as Error)?.message ?? err).includes('NOSCRIPT')) throw err;
      reply = await this.client.eval(FIXED_WINDOW_SCRIPT, 1, redisKey, windowMs);
    }
    if (!Array.isArray(reply) || reply.length !== 2) {
      throw new DomainError('INTERNAL', 'Unexpected rate-limit script reply');
    }
    const count = Number(reply[0]);
    const ttlMs = Number(reply[1]);
    const allowed = count <= limit;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - count),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil(ttlMs / 1000)),
    };
  }

  async close(): Promise<void> {
    if (this.ownsClient) await this.client.quit();
  }
}
