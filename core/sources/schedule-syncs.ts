/**
 * One scheduler tick (the worker runs it on a timer): every source with sync enabled whose `nextSyncAt`
 * has passed gets a `sources.sync` job, and its `nextSyncAt` moves one period ahead at once so the next
 * tick does not queue it again (the sync sets it again when it finishes). Two workers ticking at the same
 * moment may queue the same source twice; the job id is derived from the due time so queues that can tell
 * drop the copy, and a repeated sync is harmless anyway (unchanged items are skipped by hash).
 */
import { addMinutes } from './source-view';
import { type SourcesDeps, SYNC_QUEUE, type SyncJobPayload } from './sources-deps';

export interface TickReport {
  enqueued: { sourceId: string; jobId: string }[];
}

export async function enqueueDueSyncs(
  deps: Pick<SourcesDeps, 'knowledge' | 'settings' | 'log'>,
  now: Date = deps.knowledge.clock.now(),
): Promise<TickReport> {
  const repos = deps.knowledge.store.repos;
  const nowIso = now.toISOString();
  const due = await repos.sources.listDue(nowIso, deps.settings.schedulerBatch);
  const enqueued: TickReport['enqueued'] = [];
  for (const source of due) {
    const claimed = await repos.sources.update(source.organizationId, source.id, {
      nextSyncAt: addMinutes(nowIso, source.syncFrequencyMinutes),
      updatedAt: nowIso,
    });
    if (!claimed) continue;
    const payload: SyncJobPayload = { organizationId: source.organizationId, sourceId: source.id, reason: 'scheduled' };
    try {
      const jobId = await deps.knowledge.queue.enqueue(SYNC_QUEUE, payload, {
        jobId: `sync-${source.id}-${Date.parse(source.nextSyncAt ?? nowIso)}`,
      });
      enqueued.push({ sourceId: source.id, jobId });
    } catch (error) {
      // Give it back to the next tick.
      await repos.sources.update(source.organizationId, source.id, { nextSyncAt: source.nextSyncAt, updatedAt: nowIso });
      deps.log('warn', `source ${source.id}: scheduled sync not queued`, error);
    }
  }
  return { enqueued };
}
