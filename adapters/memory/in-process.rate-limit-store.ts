import { RateLimiterMemory } from 'rate-limiter-flexible';

import type { Clock } from '../../core/ports/clock';
import { SlidingWindowRateLimitStore, UNBOUNDED_POINTS } from '../rate-limiter-flexible/sliding-window.rate-limit-store';

export interface InProcessRateLimitStoreOptions {
  /** Defaults to the system clock. */
  clock?: Clock;
}

export const inProcessRateLimitStoreOptionsSchema = {
  type: 'object',
  properties: {},
  additionalProperties: false,
} as const;

/**
 * Sliding-window limits counted in this process by rate-limiter-flexible's memory limiter (each counter
 * expires two windows after its first hit, so memory follows the number of active keys).
 */
export class InProcessRateLimitStore extends SlidingWindowRateLimitStore {
  constructor(options: InProcessRateLimitStoreOptions = {}) {
    super('in-process', (keyPrefix, ttlSeconds) => new RateLimiterMemory({ keyPrefix, points: UNBOUNDED_POINTS, duration: ttlSeconds }), {
      clock: options.clock,
    });
  }
}
