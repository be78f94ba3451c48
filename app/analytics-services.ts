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

/** One tick of the analytics job (exported for tests and benchmarks). */
export async function analyticsTick(infra: Infrastructure, deps: AnalyticsAreaDeps): Promise<void> {
  await infra.analytics.store.refreshRollup(new Date(infra.clock.now().getTime() - ROLLUP_LAG_MS));
  await infra.analytics.recorder.flush();
  for (const kb of await infra.analytics.learning.staleKnowledgeBases(PRIOR_REFRESHES_PER_TICK))
    await recomputePriors(deps, kb.organizationId, kb.knowledgeBaseId);
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
