export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the caller may try again (0 when allowed). */
  retryAfterSeconds: number;
}

/**
 * Counts hits per key in a sliding window of `windowSeconds` (at most `limit` hits in any window-long span,
 * up to the adapter's approximation). Adapters never fail open: a store that cannot be reached is backed by
 * an in-process limiter.
 */
export interface RateLimitStore {
  readonly id: string;
  /**
   * Counts one hit (refused hits are not counted) and says whether it is allowed. `cost` (default 1, a positive
   * integer) counts that many at once: budgets of measured work (thread-milliseconds) rather than requests.
   */
  hit(key: string, limit: number, windowSeconds: number, cost?: number): Promise<RateLimitDecision>;
  /**
   * The same as `hit`, answered at once: only stores that count in this process have it. The gateway uses it
   * on every request when present, where a promise and its hooks cost more than the counting.
   */
  hitNow?(key: string, limit: number, windowSeconds: number): RateLimitDecision;
  /** What a hit would get now, without counting one. */
  peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  /** Forgets the key's hits (e.g. failed sign-ins after a success). */
  reset(key: string, windowSeconds: number): Promise<void>;
  close(): Promise<void>;
}
export const RATE_LIMIT_STORE = Symbol.for('RateLimitStore');
