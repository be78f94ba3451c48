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
    return new RedisRateLimitStore({ url: setting.requiredString(settings, 'REDIS_URL'), prefix: 'agent-platform:rl:' });
  },
});
