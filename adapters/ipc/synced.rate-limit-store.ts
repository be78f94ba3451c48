import type { RateLimitDecision, RateLimitStore } from '../../core/ports/rate-limit-store';
import { InProcessRateLimitStore } from '../memory/in-process.rate-limit-store';
import { hitCost } from '../shared/sliding-window';
import type { IpcClient } from './ipc-rpc';

/** How often a replica reports its gateway's hits to the primary, and learns which keys are spent. */
export const REPORT_EVERY_MS = 50;

const MAX_KNOWN_KEYS = 50_000;

/** Hits one replica counted for one key since its last report. */
export interface ReportedHits {
  key: string;
  limit: number;
  windowSeconds: number;
  hits: number;
}

interface Known {
  remaining: number;
  /** A key the primary reported spent stays refused here until then (ms since the epoch). */
  refusedUntil: number;
}

/**
 * The per-request limits of a replica's gateway, without a round trip to the primary on each request (one
 * costs about as much CPU as the request): hits are counted here at once, against the key's limit, and
 * reported to the primary every REPORT_EVERY_MS, which counts them with every other process's and answers
 * what is left. A key the whole platform has spent is refused here from then on.
 *
 * The approximation: what this replica knows of the other processes' hits is as old as its last report, so
 * once the platform-wide count reaches the limit it may still allow the hits it serves until its next report
 * (one, when requests are further apart than REPORT_EVERY_MS; never more than the limit counted here alone).
 * Limits that must be exact (failed sign-ins, public chat) use IpcRateLimitStore.
 */
export class SyncedRateLimitStore implements RateLimitStore {
  readonly id = 'ipc-synced';
  private readonly own = new InProcessRateLimitStore();
  private readonly unreported = new Map<string, ReportedHits>();
  private readonly known = new Map<string, Known>();
  private timer: NodeJS.Timeout | null = null;

  constructor(
    private readonly primary: IpcClient,
    private readonly now: () => number = Date.now,
  ) {}

  async hit(key: string, limit: number, windowSeconds: number, cost?: number): Promise<RateLimitDecision> {
    return this.hitNow(key, limit, windowSeconds, cost);
  }

  /** `cost` is counted here at once and reported as that many hits (the gateway's per-request limits use 1). */
  hitNow(key: string, limit: number, windowSeconds: number, cost?: number): RateLimitDecision {
    const refused = this.refusedByPlatform(key, limit);
    if (refused) return refused;
    const own = this.own.hitNow(key, limit, windowSeconds, cost);
    if (!own.allowed) return own;
    const n = hitCost(cost);
    const pending = this.unreported.get(key);
    if (pending) pending.hits += n;
    else this.unreported.set(key, { key, limit, windowSeconds, hits: n });
    this.timer ??= setTimeout(() => void this.report(), REPORT_EVERY_MS);
    return { ...own, remaining: Math.min(own.remaining, this.platformRemaining(key, own.remaining)) };
  }

  async peek(key: string, limit: number, windowSeconds: number): Promise<RateLimitDecision> {
    return this.refusedByPlatform(key, limit) ?? this.own.peek(key, limit, windowSeconds);
  }

  async reset(key: string, windowSeconds: number): Promise<void> {
    this.known.delete(key);
    this.unreported.delete(key);
    await this.own.reset(key, windowSeconds);
    await this.primary.call('rateLimits.reset', key, windowSeconds).catch(() => undefined); // as IpcRateLimitStore.reset
  }

  async close(): Promise<void> {
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    await this.report();
    await this.own.close();
  }

  /** Sends what was counted since the last report; the answer says, per key, what the platform has left. */
  private async report(): Promise<void> {
    this.timer = null;
    if (this.unreported.size === 0) return;
    const batch = [...this.unreported.values()];
    this.unreported.clear();
    const decisions = await this.primary.call<RateLimitDecision[]>('rateLimits.report', batch).catch(() => null);
    if (!decisions) return; // the primary is gone: this process's own counts still bound each key
    const at = this.now();
    if (this.known.size > MAX_KNOWN_KEYS) this.known.clear(); // crude bound: forgetting only loosens until the next report
    batch.forEach((b, i) => {
      const d = decisions[i]!;
      this.known.set(b.key, { remaining: d.remaining, refusedUntil: d.allowed ? 0 : at + Math.max(1, d.retryAfterSeconds) * 1000 });
    });
  }

  private refusedByPlatform(key: string, limit: number): RateLimitDecision | null {
    const k = this.known.get(key);
    if (!k || k.refusedUntil === 0) return null;
    const wait = k.refusedUntil - this.now();
    if (wait <= 0) {
      this.known.delete(key);
      return null;
    }
    return { allowed: false, limit, remaining: 0, retryAfterSeconds: Math.ceil(wait / 1000) };
  }

  /** What the platform had left at the last report, less what this process counted since. */
  private platformRemaining(key: string, fallback: number): number {
    const k = this.known.get(key);
    if (!k) return fallback;
    return Math.max(0, k.remaining - (this.unreported.get(key)?.hits ?? 0));
  }
}

/**
 * The primary's side of a report: counts each key's hits as if they had come one by one, and answers what the
 * key's next hit would get (so a replica whose own hits spent the key refuses the next one itself).
 */
export async function countReported(store: RateLimitStore, batch: ReportedHits[]): Promise<RateLimitDecision[]> {
  return Promise.all(
    batch.map(async (b) => {
      for (let i = 0; i < b.hits; i++) {
        // Refused hits are not counted: the rest would be refused too.
        if (!(await store.hit(b.key, b.limit, b.windowSeconds)).allowed) break;
      }
      return store.peek(b.key, b.limit, b.windowSeconds);
    }),
  );
}
