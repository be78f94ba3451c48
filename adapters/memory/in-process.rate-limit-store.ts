import type { Clock } from '../../core/ports/clock';
import type { RateLimitDecision, RateLimitStore } from '../../core/ports/rate-limit-store';
import { hitCost, hitDecision, peekDecision, windowAt, type WindowPosition } from '../shared/sliding-window';
import { SystemClock } from '../system/system.clock';

export interface InProcessRateLimitStoreOptions {
  /** Defaults to the system clock. */
  clock?: Clock;
}

export const inProcessRateLimitStoreOptionsSchema = {
  type: 'object',
  properties: {},
  additionalProperties: false,
} as const;

/** One key's hits in the window numbered `index` and in the one before it. */
interface Counts {
  index: number;
  current: number;
  previous: number;
}

/** How often keys whose windows have both passed are dropped. */
const SWEEP_EVERY_MS = 60_000;

/**
 * Sliding-window limits (the same approximation and answers as the shared stores) counted in this process,
 * in plain maps: every request makes two hits, and a counting library's records, timers and promises cost
 * several times the arithmetic. A key whose two windows have passed is dropped by a sweep once a minute, so
 * memory follows the number of active keys.
 */
export class InProcessRateLimitStore implements RateLimitStore {
  readonly id = 'in-process';
  private readonly clock: Clock;
  /** By window length, then by key. */
  private readonly windows = new Map<number, Map<string, Counts>>();
  private readonly sweeper: NodeJS.Timeout;

  constructor(options: InProcessRateLimitStoreOptions = {}) {
    this.clock = options.clock ?? new SystemClock();
    this.sweeper = setInterval(() => this.sweep(), SWEEP_EVERY_MS);
    this.sweeper.unref();
  }

  hit(key: string, limit: number, windowSeconds: number, cost?: number): Promise<RateLimitDecision> {
    return Promise.resolve(this.hitNow(key, limit, windowSeconds, cost));
  }

  hitNow(key: string, limit: number, windowSeconds: number, cost?: number): RateLimitDecision {
    const w = windowAt(this.clock.now().getTime(), windowSeconds);
    const counts = this.countsOf(key, w, true)!;
    const n = hitCost(cost);
    counts.current += n;
    const decision = hitDecision(limit, counts.previous, counts.current, w, n);
    if (!decision.allowed) counts.current -= n; // refused hits are not counted
    return decision;
  }

  peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    const w = windowAt(this.clock.now().getTime(), windowSeconds);
    const counts = this.countsOf(key, w, false);
    return Promise.resolve(peekDecision(limit, counts?.previous ?? 0, counts?.current ?? 0, w));
  }

  reset(key: string, windowSeconds: number): Promise<void> {
    this.windows.get(windowAt(0, windowSeconds).windowMs)?.delete(key);
    return Promise.resolve();
  }

  /** How many keys are held (those of both windows passed included, until the next sweep). */
  get keyCount(): number {
    let n = 0;
    for (const byKey of this.windows.values()) n += byKey.size;
    return n;
  }

  close(): Promise<void> {
    clearInterval(this.sweeper);
    this.windows.clear();
    return Promise.resolve();
  }

  /** The key's counts moved on to the window `w` is in (created when `create`). */
  private countsOf(key: string, w: WindowPosition, create: boolean): Counts | undefined {
    let byKey = this.windows.get(w.windowMs);
    if (!byKey) {
      if (!create) return undefined;
      byKey = new Map();
      this.windows.set(w.windowMs, byKey);
    }
    let counts = byKey.get(key);
    if (!counts) {
      if (!create) return undefined;
      counts = { index: w.index, current: 0, previous: 0 };
      byKey.set(key, counts);
    } else if (counts.index !== w.index) {
      counts.previous = counts.index === w.index - 1 ? counts.current : 0;
      counts.current = 0;
      counts.index = w.index;
    }
    return counts;
  }

  private sweep(): void {
    const now = this.clock.now().getTime();
    for (const [windowMs, byKey] of this.windows) {
      const index = Math.floor(now / windowMs);
      for (const [key, counts] of byKey) if (counts.index < index - 1) byKey.delete(key);
      if (byKey.size === 0) this.windows.delete(windowMs);
    }
  }
}
