import { definePort } from '../../adapters/kit/port-registry';
import { inProcessNonceRegistry } from '../../adapters/memory/in-process.adapters';
import { redisNonceRegistry } from '../../adapters/redis/redis.adapters';
import { NONCE_REGISTRY, type NonceRegistry } from '../../core/ports/nonce-registry';
import { singleAdapterPort } from './platform-port';

/** Redis is listed first: REDIS_URL alone selects it, like the rate-limit store. */
export const nonceRegistryPort = singleAdapterPort(
  definePort<NonceRegistry>({
    key: 'NONCE_REGISTRY',
    description: 'One-time nonces of the gateway-to-api signature (replay protection)',
    token: NONCE_REGISTRY,
    adapters: [redisNonceRegistry, inProcessNonceRegistry],
  }),
  NONCE_REGISTRY,
);
