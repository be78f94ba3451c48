/**
 * Adding, listing, re-syncing and removing the URL/feed sources of a knowledge base (spec 4.7). Editing
 * needs edit on the knowledge base (viewers without a grant: 403); another organization's knowledge base is
 * 404. The sync itself runs as a `sources.sync` job (sync-source.ts).
 */
import { audit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { removeDocument } from '../knowledge/ingest-text';
import { knowledgeBaseFor } from '../knowledge/kb-access';
import type { KnowledgeSource } from '../knowledge/source';
import { DomainError } from '../shared/errors';
import { optionalWebhookUrl } from '../webhooks/webhook-url';
import { addMinutes, type SourceView, toSourceView } from './source-view';
import { sourceContext, type SourcesDeps, SYNC_QUEUE, type SyncJobPayload } from './sources-deps';
import { startSyncJob } from './sync-progress';

/** The source and its sync settings; every other field is an option of its type (validated by the plugin's schema). */
export type AddSourceInput = {
  url: string;
  sourceType?: string;
  syncEnabled?: boolean;
  syncFrequencyMinutes?: number;
  /** HTTPS URL that receives the signed terminal event of the first sync job. */
  webhookUrl?: unknown;
} & Record<string, unknown>;

export const DEFAULT_SYNC_FREQUENCY_MINUTES = 60;

/** The plugin (its secrets configured), canonical URL and validated options of a requested source (no network). */
export function resolveSource(deps: SourcesDeps, input: { url: string; sourceType?: string; options?: Record<string, unknown> }) {
  const type = input.sourceType ?? 'url';
  const plugin = deps.registry.usable(type);
  const url = plugin.normalize(input.url);
  const options = deps.registry.validateOptions(type, input.options ?? {});
  return { plugin, type, url, options };
}

/**
 * Records the sync job (readable at `/api/jobs/:jobId`, with its optional webhook) with its queue message, sent once
 * the caller's transaction commits (and by the sweeper if it could not be).
 */
export async function enqueueSync(
  deps: SourcesDeps,
  source: KnowledgeSource,
  reason: SyncJobPayload['reason'],
  options: { webhookUrl?: string | null; createdBy?: string | null } = {},
): Promise<string> {
  const jobId = deps.knowledge.ids.uuid();
  const payload: SyncJobPayload = { organizationId: source.organizationId, sourceId: source.id, reason };
  if (!deps.knowledge.jobs) return deps.knowledge.queue.enqueue<SyncJobPayload>(SYNC_QUEUE, payload, { jobId });
  await startSyncJob(deps, jobId, source, { ...options, dispatch: { queue: SYNC_QUEUE, payload } });
  return jobId;
}

async function itemCount(deps: SourcesDeps, sourceId: string) {
  return (await deps.knowledge.store.repos.sources.listItems(sourceId)).filter((i) => i.documentId).length;
}

/**
 * Checks the URL with the plugin (normalise, then fetch its entry point: an unreadable or internal URL is
 * 400 unsupported_url, a throttling store 503 store_throttled), records the source and queues its first
 * sync. The same URL and type added again to the same knowledge base updates that source instead of
 * making a duplicate.
 */
export async function addSource(deps: SourcesDeps, actor: Actor, knowledgeBaseId: string, input: AddSourceInput) {
  const repos = deps.knowledge.store.repos;
  const kb = await knowledgeBaseFor(repos, actor, knowledgeBaseId, 'edit');
  const {
    url: requestedUrl,
    sourceType,
    syncEnabled: requestedSync,
    syncFrequencyMinutes: requestedFrequency,
    webhookUrl: requestedWebhook,
    ...requested
  } = input;
  const webhookUrl = optionalWebhookUrl(requestedWebhook);
  const { plugin, type, url, options } = resolveSource(deps, { url: requestedUrl, sourceType, options: requested });
  const syncEnabled = requestedSync ?? false;
  if (syncEnabled && !plugin.capabilities.includes('schedule'))
    throw new DomainError('VALIDATION', `A ${type} source cannot be synced on a schedule (syncEnabled)`, [{ field: 'syncEnabled' }]);
  await plugin.probe?.({ url, options }, sourceContext(deps, type));

  const now = deps.knowledge.clock.now().toISOString();
  const syncFrequencyMinutes = requestedFrequency ?? DEFAULT_SYNC_FREQUENCY_MINUTES;
  const nextSyncAt = syncEnabled ? addMinutes(now, syncFrequencyMinutes) : null;
  const existing = (await repos.sources.listForKnowledgeBase(kb.organizationId, kb.id)).find((s) => s.sourceType === type && s.url === url);
  let source: KnowledgeSource;
  if (existing) {
    source =
      (await repos.sources.update(kb.organizationId, existing.id, {
        options,
        syncEnabled,
        syncFrequencyMinutes,
        nextSyncAt,
        updatedAt: now,
      })) ?? existing;
  } else {
    source = {
      id: deps.knowledge.ids.uuid(),
      organizationId: kb.organizationId,
      knowledgeBaseId: kb.id,
      url,
      sourceType: type,
      options,
      syncEnabled,
      syncFrequencyMinutes,
      lastSyncedAt: null,
      nextSyncAt,
      lastSyncError: null,
      syncHealth: 'pending',
      createdBy: actor.userId,
      createdAt: now,
      updatedAt: now,
    };
    await repos.sources.create(source);
  }
  const jobId = await enqueueSync(deps, source, 'added', { webhookUrl, createdBy: actor.userId });
  if (!existing) {
    await audit(deps.knowledge, repos, actor.userId, kb.organizationId, 'source.create', ['source', source.id], { url, sourceType: type });
  }
  return {
    source: toSourceView(source, existing ? await itemCount(deps, source.id) : 0),
    jobId,
    message: existing ? 'Source already in the knowledge base; sync queued' : 'Source added; indexing started',
  };
}

export async function listSources(
  deps: SourcesDeps,
  actor: Actor,
  knowledgeBaseId: string,
): Promise<{ sources: SourceView[]; count: number }> {
  const repos = deps.knowledge.store.repos;
  const kb = await knowledgeBaseFor(repos, actor, knowledgeBaseId, 'read');
  const sources = await repos.sources.listForKnowledgeBase(kb.organizationId, kb.id);
  const views = await Promise.all(sources.map(async (s) => toSourceView(s, await itemCount(deps, s.id))));
  return { sources: views, count: views.length };
}

async function sourceOf(deps: SourcesDeps, actor: Actor, knowledgeBaseId: string, sourceId: string, permission: 'read' | 'edit') {
  const repos = deps.knowledge.store.repos;
  const kb = await knowledgeBaseFor(repos, actor, knowledgeBaseId, permission);
  const source = await repos.sources.findById(kb.organizationId, sourceId);
  if (!source || source.knowledgeBaseId !== kb.id) throw new DomainError('NOT_FOUND', 'Source not found');
  return source;
}

export async function requestSync(
  deps: SourcesDeps,
  actor: Actor,
  knowledgeBaseId: string,
  sourceId: string,
  options: { webhookUrl?: unknown } = {},
) {
  const source = await sourceOf(deps, actor, knowledgeBaseId, sourceId, 'edit');
  const webhookUrl = optionalWebhookUrl(options.webhookUrl);
  const jobId = await enqueueSync(deps, source, 'manual', { webhookUrl, createdBy: actor.userId });
  return { message: 'Sync queued', sourceId: source.id, jobId };
}

/**
 * Removes the source and every document it added (rows, chunks, stored text). The row goes first, so a
 * sync running meanwhile cannot add documents to it any more (their foreign key fails); the documents
 * recorded for its items are removed after.
 */
export async function deleteSource(deps: SourcesDeps, actor: Actor, knowledgeBaseId: string, sourceId: string) {
  const source = await sourceOf(deps, actor, knowledgeBaseId, sourceId, 'edit');
  const repos = deps.knowledge.store.repos;
  const documentIds = (await repos.sources.listItems(source.id)).map((i) => i.documentId).filter((id): id is string => !!id);
  await repos.sources.delete(source.organizationId, source.id);
  await audit(deps.knowledge, repos, actor.userId, source.organizationId, 'source.delete', ['source', source.id], { url: source.url });
  let documentsDeleted = 0;
  let chunksDeleted = 0;
  for (const documentId of documentIds) {
    const removed = await removeDocument(deps.knowledge, source.organizationId, documentId);
    if (removed.deleted) documentsDeleted++;
    chunksDeleted += removed.chunksDeleted;
  }
  return { message: 'Source deleted', sourceId: source.id, documentsDeleted, chunksDeleted };
}
