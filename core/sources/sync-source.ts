/**
 * The `sources.sync` job: lists the source's items through its plugin, hashes each item's content and
 * re-indexes only what changed: a new item creates a document, a changed one replaces its document's
 * chunks (same document id), an unchanged one is skipped (unless its document failed or is gone). Items
 * that disappeared from the source keep their documents (feeds only show the latest entries; older posts
 * stay searchable); deleting the source removes them all.
 *
 * Health (read by the agent knowledge-base listing): `healthy` with no error after a sync in which at least
 * one item was read; `failing` with `lastSyncError` when the source could not be listed, had no items, or
 * every item failed. Single item failures of an otherwise readable source are logged, not fatal.
 */
import { ingestText } from '../knowledge/ingest-text';
import type { KnowledgeSource } from '../knowledge/source';
import { DomainError, isDomainError } from '../shared/errors';
import type { ListedItem, SourceItemContent, SourcePlugin } from './source-plugin';
import { addMinutes } from './source-view';
import { sourceContext, type SourcesDeps, type SyncJobPayload } from './sources-deps';
import { syncReporter } from './sync-progress';

export interface SyncReport {
  sourceId: string;
  status: 'healthy' | 'failing' | 'skipped';
  listed: number;
  created: number;
  updated: number;
  unchanged: number;
  failed: number;
  error?: string;
}

const messageOf = (error: unknown) =>
  isDomainError(error) ? error.message : `Unexpected error: ${error instanceof Error ? error.message : String(error)}`;

/** `jobId`: the queue job of the sync, which reports as a job (sync-progress.ts). */
export async function syncSource(
  deps: SourcesDeps,
  payload: Pick<SyncJobPayload, 'organizationId' | 'sourceId'>,
  jobId?: string,
): Promise<SyncReport> {
  const repos = deps.knowledge.store.repos;
  const report: SyncReport = { sourceId: payload.sourceId, status: 'skipped', listed: 0, created: 0, updated: 0, unchanged: 0, failed: 0 };
  const progress = syncReporter(deps, jobId);
  const source = await repos.sources.findById(payload.organizationId, payload.sourceId);
  if (!source) {
    await progress.failed('not_found', 'The source was deleted', { ...report });
    return report;
  }
  await progress.start(source);
  await progress.listing();
  let firstItemError: unknown = null;
  try {
    const plugin = deps.registry.usable(source.sourceType);
    const target = { url: source.url, options: deps.registry.validateOptions(source.sourceType, source.options) };
    const ctx = sourceContext(deps, source.sourceType);
    const listing = await plugin.listItems(target, ctx);
    const seen = new Set<string>();
    const items = listing.items.filter((i) => !seen.has(i.key) && seen.add(i.key));
    report.listed = items.length;
    if (items.length === 0) throw new DomainError('UNSUPPORTED_URL', 'The source has no readable items');
    for (const [i, listed] of items.entries()) {
      try {
        const outcome = await syncItem(deps, source, plugin, listed, target, ctx);
        report[outcome]++;
      } catch (error) {
        report.failed++;
        firstItemError ??= error;
        deps.log('warn', `source ${source.id}: item ${listed.key} failed: ${messageOf(error)}`);
      }
      await progress.items(i + 1, items.length);
    }
    if (report.failed === items.length) throw firstItemError;
  } catch (error) {
    // Recorded as the source's health, not retried by the queue: the next sync (scheduled or manual) retries.
    // Only a failure to record it (store down) makes the job throw and the queue retry.
    report.status = 'failing';
    report.error = messageOf(error);
    await recordHealth(deps, source, report.error);
    deps.log('info', `source ${source.id}: sync failed: ${report.error}`);
    await progress.failed('sync_failed', report.error, { ...report });
    return report;
  }
  report.status = 'healthy';
  await recordHealth(deps, source, null);
  await progress.completed({ ...report });
  return report;
}

/** Title first (so it is searchable and part of the hash), then the text. */
const indexedText = (content: SourceItemContent) => {
  const title = content.title.trim();
  const text = content.text.trim();
  return title && !text.startsWith(title) ? `${title}\n\n${text}` : text;
};

async function syncItem(
  deps: SourcesDeps,
  source: KnowledgeSource,
  plugin: SourcePlugin,
  listed: ListedItem,
  target: { url: string; options: Record<string, unknown> },
  ctx: ReturnType<typeof sourceContext>,
): Promise<'created' | 'updated' | 'unchanged'> {
  const content = listed.item ?? (await plugin.fetchItem(listed, target, ctx));
  if (!content.text.trim()) throw new DomainError('UNSUPPORTED_URL', `"${content.title || listed.url}" has no readable text`);
  // ingestText compares the text's hash with the item's document: unchanged (and not failed) is skipped,
  // changed re-queues the same document (its chunks are replaced), new creates one; it records source_items.
  const result = await ingestText(deps.knowledge, {
    organizationId: source.organizationId,
    knowledgeBaseId: source.knowledgeBaseId,
    title: content.title || content.url,
    text: indexedText(content),
    sourceId: source.id,
    itemKey: listed.key,
    contentType: content.mimeType,
    metadata: {
      url: content.url,
      sourceType: source.sourceType,
      ...(content.publishedAt ? { publishedAt: content.publishedAt } : {}),
      ...(content.author ? { author: content.author } : {}),
    },
    createdBy: source.createdBy,
  });
  return result.outcome;
}

async function recordHealth(deps: SourcesDeps, source: KnowledgeSource, error: string | null) {
  const now = deps.knowledge.clock.now().toISOString();
  // Re-read: the sync settings may have changed while the sync ran.
  const current = (await deps.knowledge.store.repos.sources.findById(source.organizationId, source.id)) ?? source;
  await deps.knowledge.store.repos.sources.update(source.organizationId, source.id, {
    syncHealth: error ? 'failing' : 'healthy',
    lastSyncError: error,
    ...(error ? {} : { lastSyncedAt: now }),
    nextSyncAt: current.syncEnabled ? addMinutes(now, current.syncFrequencyMinutes) : null,
    updatedAt: now,
  });
}
