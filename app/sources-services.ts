/**
 * Wiring of the sources area: the source plugin registry (plugins/sources and PLUGINS packages), the SSRF-guarded
 * outbound fetcher of the knowledge adapters (OUTBOUND_ALLOW feeds its test-only allow list), the
 * `sources.sync` worker and the scheduler timer of the worker role.
 */
import { leasedHandler } from '../core/jobs/job-leases';
import type { KnowledgeDeps } from '../core/knowledge/knowledge-deps';
import type { Subscription } from '../core/ports/job-queue';
import { enqueueDueSyncs } from '../core/sources/schedule-syncs';
import { DEFAULT_SOURCES_SETTINGS, type SourcesDeps, SYNC_QUEUE, type SyncJobPayload } from '../core/sources/sources-deps';
import { syncSource } from '../core/sources/sync-source';
import type { Consumer } from './consumer';
import type { Infrastructure } from './infrastructure';
import { buildLeaseDeps, endJob } from './jobs-services';

/** How often the worker looks for sources due for a sync. */
export const SCHEDULER_INTERVAL_MS = 60_000;

export function buildSourcesDeps(infra: Infrastructure, knowledge: KnowledgeDeps): SourcesDeps {
  return {
    knowledge,
    registry: infra.plugins.sources,
    fetcher: infra.knowledge.outbound,
    html: infra.knowledge.html,
    settings: DEFAULT_SOURCES_SETTINGS,
    log: (level, message, extra) => infra.log(level, message, extra),
  };
}

export const sourceSyncConsumer: Consumer<{ sources: SourcesDeps }> = {
  queue: SYNC_QUEUE,
  start: (infra, services) =>
    infra.queue.consume<SyncJobPayload>(
      SYNC_QUEUE,
      leasedHandler(buildLeaseDeps(infra), async (job) => void (await syncSource(services.sources, job.payload, job.id)), {
        maxAttempts: 3,
        onExhausted: endJob(infra),
      }),
      { concurrency: 2, maxAttempts: 3, backoffMs: 5000 },
    ),
};

/**
 * Not a queue consumer: a timer in the worker role that queues due syncs (enqueueDueSyncs) every minute, on one
 * worker at a time (TickLeadership): two at once could queue the same source twice.
 */
export const sourceSchedulerConsumer: Consumer<{ sources: SourcesDeps }> = {
  queue: `${SYNC_QUEUE}.scheduler`,
  async start(infra, services): Promise<Subscription> {
    const deps = services.sources;
    let running: Promise<unknown> = Promise.resolve();
    let busy = false;
    const timer = setInterval(() => {
      if (busy) return;
      busy = true;
      running = infra.leadership
        .runExclusive(`${SYNC_QUEUE}.scheduler`, () => enqueueDueSyncs(deps))
        .catch((error) => deps.log('error', 'source scheduler tick failed', error))
        .finally(() => {
          busy = false;
        });
    }, SCHEDULER_INTERVAL_MS);
    timer.unref();
    return {
      close: async () => {
        clearInterval(timer);
        await running;
      },
    };
  },
};
