import { definePort } from '../../adapters/kit/port-registry';
import { inProcessRateLimitStore } from '../../adapters/memory/in-process.adapters';
import { redisRateLimitStore } from '../../adapters/redis/redis.adapters';
import { RATE_LIMIT_STORE, type RateLimitStore } from '../../core/ports/rate-limit-store';
import { singleAdapterPort } from './platform-port';

/** Redis is listed first: REDIS_URL alone selects it, as before the registry existed. */
export const rateLimitStorePort = singleAdapterPort(
  definePort<RateLimitStore>({
    key: 'RATE_LIMIT_STORE',
    description: 'Counters of the gateway and public-chat rate limits',
    token: RATE_LIMIT_STORE,
    adapters: [redisRateLimitStore, inProcessRateLimitStore],
  }),
  RATE_LIMIT_STORE,
);
