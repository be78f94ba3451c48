export interface RateLimitDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Whole seconds until the caller may try again (0 when allowed). */
  retryAfterSeconds: number;
}

/** Counts hits per key in a fixed window. */
export interface RateLimitStore {
  readonly id: string;
  hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision>;
  close(): Promise<void>;
}
export const RATE_LIMIT_STORE = Symbol.for('RateLimitStore');
