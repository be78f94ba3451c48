import Ajv from 'ajv';

import { inProcessRateLimitStoreOptionsSchema } from '../adapters/memory/in-process.rate-limit-store';
import { redisRateLimitStoreOptionsSchema } from '../adapters/redis/redis.rate-limit-store';
import { gatewayOptionsSchema } from './gateway-options';

const ajv = new Ajv({ allErrors: true, useDefaults: true });

describe('options schemas', () => {
  const validateGateway = ajv.compile(gatewayOptionsSchema);

  it('accepts a full gateway configuration and fills defaults', () => {
    const config: Record<string, unknown> = {
      limits: { perIp: { limit: 600, windowSeconds: 60 }, perPrincipal: { limit: 1200, windowSeconds: 60 } },
    };
    expect(validateGateway(config)).toBe(true);
    expect(config.trustProxy).toBe(false);
    expect(config.tokenCacheSize).toBe(5000);
  });

  it('lists every error of a bad gateway configuration at once', () => {
    expect(validateGateway({ limits: { perIp: { limit: 0, windowSeconds: 1.5 } }, trustProxy: 'yes', extra: 1 })).toBe(false);
    expect(validateGateway.errors!.length).toBeGreaterThanOrEqual(4);
  });

  it('validates the rate-limit store options', () => {
    const redis = ajv.compile(redisRateLimitStoreOptionsSchema);
    expect(redis({ url: 'redis://127.0.0.1:6379', prefix: 'rl:' })).toBe(true);
    expect(redis({ url: 'http://x' })).toBe(false);
    expect(redis({ prefix: 'x' })).toBe(false);
    const memory = ajv.compile(inProcessRateLimitStoreOptionsSchema);
    expect(memory({})).toBe(true);
    expect(memory({ maxKeys: 10 })).toBe(false);
  });
});
