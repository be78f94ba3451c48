import type { NonceRegistry } from '../../core/ports/nonce-registry';
import type { RateLimitStore } from '../../core/ports/rate-limit-store';
import { defineAdapter, setting } from '../kit/adapter-definition';

/** RATE_LIMIT_STORE=redis, picked when REDIS_URL is set: limits shared by every gateway. */
export const redisRateLimitStore = defineAdapter<RateLimitStore>({
  id: 'redis',
  description: 'Redis (limits shared by every gateway process)',
  settings: { REDIS_URL: { type: 'string', pattern: '^rediss?://' } },
  requires: ['REDIS_URL'],
  selectedWhen: ['REDIS_URL'],
  async create(settings) {
    const { RedisRateLimitStore } = await import('./redis.rate-limit-store');
    const store = new RedisRateLimitStore({ url: setting.requiredString(settings, 'REDIS_URL'), prefix: 'agent-platform:rl:' });
    // Until Redis answers, each process limits on its own (insurance limiter): never open.
    await store.ready();
    return store;
  },
});

/** NONCE_REGISTRY=redis, picked when REDIS_URL is set: a gateway signature is accepted once by every api replica. */
export const redisNonceRegistry = defineAdapter<NonceRegistry>({
  id: 'redis',
  description: 'Redis (one-time signatures shared by every api replica)',
  settings: { REDIS_URL: { type: 'string', pattern: '^rediss?://' } },
  requires: ['REDIS_URL'],
  selectedWhen: ['REDIS_URL'],
  async create(settings, { log }) {
    const { RedisNonceRegistry } = await import('./redis.nonce-registry');
    return new RedisNonceRegistry({
      url: setting.requiredString(settings, 'REDIS_URL'),
      prefix: 'agent-platform:nonce:',
      onFallback: (e) => log('warn', 'nonce registry: Redis unreachable, checking replays in this process only', e),
    });
  },
});
