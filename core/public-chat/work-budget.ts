/**
 * The public lane's work budget: thread time of attachment extraction allowed per anonymous visitor and per
 * client address in a sliding window (PUBLIC_WORK_SECONDS_PER_VISITOR, PUBLIC_WORK_SECONDS_PER_IP,
 * PUBLIC_WORK_WINDOW_SECONDS). The upload limits count files; a file's cost ranges from a millisecond to the
 * pool's time bound, so this counts what the heavy-work pool measured each task held its thread. Counters live
 * in the rate-limit store (in-process, the primary's over IPC, or Redis), in thread-milliseconds, so the HTTP
 * processes that admit uploads and the consumer that extracts them see the same counts.
 */
import type { AttachmentWorkBudget, WorkPayer } from '../attachments/attachment-deps';
import type { RateLimitStore } from '../ports/rate-limit-store';
import { DomainError } from '../shared/errors';
import { sha256Hex } from '../shared/hash';

export interface PublicWorkBudget {
  /** Thread-seconds one anonymousId may use in a window. */
  visitorSeconds: number;
  /** Thread-seconds one client address may use in a window (higher: visitors share addresses). */
  ipSeconds: number;
  windowSeconds: number;
}

export const DEFAULT_PUBLIC_WORK_BUDGET: PublicWorkBudget = { visitorSeconds: 30, ipSeconds: 120, windowSeconds: 600 };

/** The address as budgets and job payloads carry it. */
export const ipKeyOf = (clientIp: string) => (clientIp ? sha256Hex(`work-budget:${clientIp}`).slice(0, 32) : undefined);

/** Charges are counted whatever the total: the work is done. */
const UNLIMITED = Number.MAX_SAFE_INTEGER;

function counters(budget: PublicWorkBudget, payer: WorkPayer) {
  const list = [{ key: `public:work:visitor:${payer.anonymousId}`, limitMs: budget.visitorSeconds * 1000 }];
  if (payer.ipKey) list.push({ key: `public:work:ip:${payer.ipKey}`, limitMs: budget.ipSeconds * 1000 });
  return list;
}

export function rateLimitedWorkBudget(store: RateLimitStore, budget: PublicWorkBudget): AttachmentWorkBudget {
  return {
    async admit(payer) {
      let decisions;
      try {
        decisions = await Promise.all(counters(budget, payer).map((c) => store.peek(c.key, c.limitMs, budget.windowSeconds)));
      } catch {
        throw new DomainError('RATE_LIMITED', 'Processing budgets cannot be checked right now; retry shortly', { retryAfterSeconds: 1 });
      }
      const refused = decisions.filter((d) => !d.allowed);
      if (!refused.length) return;
      const retryAfterSeconds = Math.max(...refused.map((d) => d.retryAfterSeconds), 1);
      throw new DomainError(
        'RATE_LIMITED',
        `Too much file processing for this visitor or address; retry after ${retryAfterSeconds} seconds`,
        { retryAfterSeconds, budget: 'thread-seconds' },
      );
    },
    async charge(payer, threadMs) {
      const cost = Math.ceil(threadMs);
      if (cost <= 0) return;
      await Promise.all(counters(budget, payer).map((c) => store.hit(c.key, UNLIMITED, budget.windowSeconds, cost)));
    },
  };
}
