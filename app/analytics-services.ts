import type { AnalyticsAreaDeps } from '../core/analytics/analytics-deps';
import { recomputePriors } from '../core/analytics/learning';
import type { Subscription } from '../core/ports/job-queue';
import type { Consumer } from './consumer';
import type { Infrastructure } from './infrastructure';

export function buildAnalyticsDeps(infra: Infrastructure): AnalyticsAreaDeps {
  const a = infra.analytics;
  return {
    store: infra.store,
    clock: infra.clock,
    ids: infra.ids,
    analytics: a.store,
    kbAnalytics: a.kb,
    learning: a.learning,
    feedback: a.learning,
    recorder: a.recorder,
  };
}

/** How often the worker rolls up finished hours and refreshes the priors of knowledge bases with new activity. */
export const ANALYTICS_TICK_MS = 60_000;
/** Hours are rolled up once this long has passed since they ended (late commits of that hour are then in). */
export const ROLLUP_LAG_MS = 5 * 60_000;
const PRIOR_REFRESHES_PER_TICK = 20;

/** The tick's name for TickLeadership: the rollup and the priors run on one worker at a time. */
export const ANALYTICS_TICK = 'analytics.rollup';

export interface AnalyticsTickReport {
  /** False when another worker was running the tick: this one only flushed its own buffered events. */
  ran: boolean;
  /** Knowledge bases whose priors were recomputed. */
  priorsRefreshed: number;
}

/**
 * One tick of the analytics job (exported for tests and benchmarks). Every worker flushes the retrieval events
 * it buffered (they are its own); the rollup and the priors, shared by all, run on one worker at a time: two at
 * once recomputed the same knowledge base's priors side by side (a duplicate key on kb_chunk_priors).
 */
export async function analyticsTick(
  infra: Pick<Infrastructure, 'analytics' | 'clock' | 'leadership'>,
  deps: AnalyticsAreaDeps,
): Promise<AnalyticsTickReport> {
  await infra.analytics.recorder.flush();
  const tick = await infra.leadership.runExclusive(ANALYTICS_TICK, async () => {
    await infra.analytics.store.refreshRollup(new Date(infra.clock.now().getTime() - ROLLUP_LAG_MS));
    const stale = await infra.analytics.learning.staleKnowledgeBases(PRIOR_REFRESHES_PER_TICK);
    for (const kb of stale) await recomputePriors(deps, kb.organizationId, kb.knowledgeBaseId);
    return stale.length;
  });
  return { ran: tick.ran, priorsRefreshed: tick.value ?? 0 };
}

/** Not a queue consumer: a timer in the worker role, like the source scheduler. The SQL runs in the database. */
export const analyticsJobConsumer: Consumer<{ analytics: AnalyticsAreaDeps }> = {
  queue: 'analytics.rollup',
  async start(infra, services): Promise<Subscription> {
    let running: Promise<unknown> = Promise.resolve();
    let busy = false;
    const tick = () => {
      if (busy) return;
      busy = true;
      running = analyticsTick(infra, services.analytics)
        .catch((error) => infra.log('error', 'analytics job tick failed', error))
        .finally(() => {
          busy = false;
        });
    };
    const timer = setInterval(tick, ANALYTICS_TICK_MS);
    timer.unref();
    tick();
    return {
      close: async () => {
        clearInterval(timer);
        await running;
      },
    };
  },
};
