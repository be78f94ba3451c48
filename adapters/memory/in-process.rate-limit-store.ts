import type { Clock } from '../../core/ports/clock';
import type { RateLimitDecision, RateLimitStore } from '../../core/ports/rate-limit-store';

export interface InProcessRateLimitStoreOptions {
  /** Defaults to the system clock. */
  clock?: Clock;
  /** Expired windows are swept at most this often (default 10 s). */
  sweepIntervalMs?: number;
  /** Hard cap on live windows; when reached, the oldest tenth is dropped (default 100 000). */
  maxKeys?: number;
}

export const inProcessRateLimitStoreOptionsSchema = {
  type: 'object',
  properties: {
    sweepIntervalMs: { type: 'integer', minimum: 100 },
    maxKeys: { type: 'integer', minimum: 1 },
  },
  additionalProperties: false,
} as const;

interface Window {
  count: number;
  resetAt: number;
}

const systemClock: Clock = { now: () => new Date() };

/**
 * Fixed-window counters in a Map. Memory stays bounded: expired windows are swept on the hit path
 * (amortised, no timer) and a hard cap evicts the oldest tenth of the windows (Map keeps insertion order) when reached.
 */
export class InProcessRateLimitStore implements RateLimitStore {
  readonly id = 'in-process';
  private readonly windows = new Map<string, Window>();
  private readonly clock: Clock;
  private readonly sweepIntervalMs: number;
  private readonly maxKeys: number;
  private nextSweepAt = 0;

  constructor(options: InProcessRateLimitStoreOptions = {}) {
    this.clock = options.clock ?? systemClock;
    this.sweepIntervalMs = options.sweepIntervalMs ?? 10_000;
    this.maxKeys = options.maxKeys ?? 100_000;
  }

  /** Live windows (for tests and metrics). */
  get size(): number {
    return this.windows.size;
  }

  async hit(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.hitSync(key, limit, windowSeconds);
  }

  hitSync(key: string, limit: number, windowSeconds: number): RateLimitDecision {
    const now = this.clock.now().getTime();
    if (now >= this.nextSweepAt) this.sweepExpired(now);
    if (this.windows.size >= this.maxKeys) this.evictOldest(Math.max(1, Math.ceil(this.maxKeys / 10)));
    const k = `${windowSeconds}:${key}`;
    let w = this.windows.get(k);
    if (!w || now >= w.resetAt) {
      if (w) this.windows.delete(k); // re-insert so insertion order tracks window age
      w = { count: 0, resetAt: now + windowSeconds * 1000 };
      this.windows.set(k, w);
    }
    w.count += 1;
    const allowed = w.count <= limit;
    return {
      allowed,
      limit,
      remaining: Math.max(0, limit - w.count),
      retryAfterSeconds: allowed ? 0 : Math.max(1, Math.ceil((w.resetAt - now) / 1000)),
    };
  }

  async close(): Promise<void> {
    this.windows.clear();
  }

  private sweepExpired(now: number): void {
    this.nextSweepAt = now + this.sweepIntervalMs;
    for (const [k, w] of this.windows) if (now >= w.resetAt) this.windows.delete(k);
  }

  /** Drops a batch of the oldest windows so the cap is not re-hit on every call. */
  private evictOldest(count: number): void {
    for (const k of this.windows.keys()) {
      if (count-- <= 0) break;
      this.windows.delete(k);
    }
  }
}
