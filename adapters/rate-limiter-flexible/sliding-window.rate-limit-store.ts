import type { RateLimiterAbstract, RateLimiterRes } from 'rate-limiter-flexible';

import type { Clock } from '../../core/ports/clock';
import type { RateLimitDecision, RateLimitStore } from '../../core/ports/rate-limit-store';
import { hitCost, hitDecision, peekDecision, windowAt, type WindowPosition } from '../shared/sliding-window';
import { SystemClock } from '../system/system.clock';

/** Builds the rate-limiter-flexible counter for one window length (each counter key lives two windows). */
export type CounterFactory = (keyPrefix: string, ttlSeconds: number) => RateLimiterAbstract;

// The counters only count; the limit is applied here, so rate-limiter-flexible itself never refuses.
export const UNBOUNDED_POINTS = 2 ** 31 - 1;

/** One key's current window: its counter, the two counter keys, and how far into the window `now` is. */
export interface SlidingWindow extends WindowPosition {
  counter: RateLimiterAbstract;
  /** How long a counter key lives (two windows and a second). */
  ttlSeconds: number;
  currentKey: string;
  previousKey: string;
}

/**
 * Sliding-window counter (the approximation Cloudflare and others use) on rate-limiter-flexible counters:
 * windows are aligned to the clock; a hit is allowed when `previous × (1 − elapsed fraction) + current ≤ limit`,
 * which removes the fixed window's 2× burst at a window boundary. Counters are atomic in the store (Redis
 * INCR), so replicas sharing a store share the limit; a refused hit is given back, so hammering does not
 * extend a lock-out beyond the window.
 */
export class SlidingWindowRateLimitStore implements RateLimitStore {
  private readonly counters = new Map<number, RateLimiterAbstract>();
  private readonly clock: Clock;

  constructor(
    readonly id: string,
    private readonly makeCounter: CounterFactory,
    options: { clock?: Clock; onClose?: () => Promise<void> } = {},
  ) {
    this.clock = options.clock ?? new SystemClock();
    this.onClose = options.onClose;
  }

  private readonly onClose?: () => Promise<void>;

  async hit(key: string, limit: number, windowSeconds: number, cost?: number): Promise<RateLimitDecision> {
    const w = this.window(key, windowSeconds);
    const n = hitCost(cost);
    const { current, previous } = await this.hitCounts(w, n);
    const decision = hitDecision(limit, previous, current, w, n);
    if (!decision.allowed) await w.counter.reward(w.currentKey, n);
    return decision;
  }

  async peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const w = this.window(key, windowSeconds);
    const [current, previous] = await Promise.all([this.count(w.counter, w.currentKey), this.count(w.counter, w.previousKey)]);
    return peekDecision(limit, previous, current, w);
  }

  async reset(key: string, windowSeconds: number): Promise<void> {
    const w = this.window(key, windowSeconds);
    await Promise.all([w.counter.delete(w.currentKey), w.counter.delete(w.previousKey)]);
  }

  async close(): Promise<void> {
    this.counters.clear();
    await this.onClose?.();
  }

  /** Counts `cost` hits in the current window and reads the previous one's count. */
  protected async hitCounts(w: SlidingWindow, cost = 1): Promise<{ current: number; previous: number }> {
    const [res, previous] = await Promise.all([w.counter.consume(w.currentKey, cost), this.count(w.counter, w.previousKey)]);
    return { current: res.consumedPoints, previous };
  }

  private window(key: string, windowSeconds: number): SlidingWindow {
    const at = windowAt(this.clock.now().getTime(), windowSeconds);
    const ttlSeconds = Math.ceil((2 * at.windowMs) / 1000) + 1;
    let counter = this.counters.get(at.windowMs);
    if (!counter) {
      counter = this.makeCounter(`${at.windowMs}`, ttlSeconds);
      this.counters.set(at.windowMs, counter);
    }
    return { ...at, counter, ttlSeconds, currentKey: `${key}:${at.index}`, previousKey: `${key}:${at.index - 1}` };
  }

  private async count(counter: RateLimiterAbstract, key: string): Promise<number> {
    const res: RateLimiterRes | null = await counter.get(key);
    return res ? Math.max(0, res.consumedPoints) : 0;
  }
}
