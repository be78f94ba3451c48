import type { JobDispatch } from '../jobs/job';
/**
 * A source sync as a job (docs/contracts.md "Jobs", kind `source_sync`): reading the source, then indexing its items
 * (progress by items done), then completed with the sync report or failed with the reason. Best effort like
 * ingestion reporting: a reporting hiccup never fails a sync (terminal reports are retried first).
 */
import { retryReport } from '../jobs/retry-report';
import type { KnowledgeSource } from '../knowledge/source';
import type { SourcesDeps } from './sources-deps';

export const SYNC_JOB_KIND = 'source_sync';

/** Idempotent (scheduled syncs start their job when the worker picks them up). */
export async function startSyncJob(
  deps: SourcesDeps,
  jobId: string,
  source: KnowledgeSource,
  options: { webhookUrl?: string | null; createdBy?: string | null; dispatch?: JobDispatch } = {},
) {
  await deps.knowledge.jobs?.start({
    id: jobId,
    organizationId: source.organizationId,
    kind: SYNC_JOB_KIND,
    stepLabel: 'Waiting to start',
    reference: { sourceId: source.id, knowledgeBaseId: source.knowledgeBaseId, url: source.url },
    webhookUrl: options.webhookUrl ?? null,
    createdBy: options.createdBy ?? null,
    ...(options.dispatch ? { dispatch: options.dispatch } : {}),
  });
}

export function syncReporter(deps: SourcesDeps, jobId: string | undefined) {
  const jobs = deps.knowledge.jobs;
  let reported = -1;
  const report = async (what: string, call: (j: NonNullable<typeof jobs>, id: string) => Promise<unknown>) => {
    if (!jobs || !jobId) return;
    await call(jobs, jobId).catch((e) => deps.log('warn', `sync job ${jobId}: ${what} not reported`, e));
  };
  return {
    start: (source: KnowledgeSource) => report('start', (_j, id) => startSyncJob(deps, id, source)),
    listing: () => report('progress', (j, id) => j.progress(id, { step: 'listing', stepLabel: 'Reading the source', progress: 5 })),
    /** After each item; reports only when the percentage moves, so a large source does not write per item. */
    items: async (done: number, total: number) => {
      const progress = Math.round(10 + (85 * done) / Math.max(1, total));
      if (progress === reported) return;
      reported = progress;
      await report('progress', (j, id) =>
        j.progress(id, { step: 'indexing', stepLabel: 'Indexing the items', detail: `${done} of ${total} items`, progress }),
      );
    },
    completed: (result: Record<string, unknown>) =>
      report('completion', (j, id) => retryReport(() => j.complete(id, { step: 'done', stepLabel: 'Source synced', result }))),
    failed: (code: string, message: string, result: Record<string, unknown>) =>
      report('failure', (j, id) =>
        retryReport(() =>
          j.fail(id, { code, message, retryable: code !== 'not_found' }, { stepLabel: 'Sync failed', body: { report: result } }),
        ),
      ),
  };
}
