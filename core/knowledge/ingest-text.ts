/**
 * System-level entry points for content that does not come from an upload (source items: pages, feed
 * entries, posts). No actor: the caller (a source sync) has already checked access to the knowledge base.
 */
import { DomainError } from '../shared/errors';
import { contentHash } from './chunk-id';
import { normalizeWhitespace } from './chunker';
import type { KnowledgeDocument } from './document';
import { blobKeyFor, type DocumentView, enqueueIngestion, toDocumentView } from './documents';
import type { KnowledgeDeps } from './knowledge-deps';

export interface IngestTextInput {
  organizationId: string;
  knowledgeBaseId: string;
  title: string;
  /** Plain text (extract it from HTML first). */
  text: string;
  /** With `itemKey`: the source item this text is; re-ingesting the same item updates its document. */
  sourceId?: string;
  itemKey?: string;
  /** Original content type, kept in metadata (the stored text is text/plain). */
  contentType?: string;
  metadata?: Record<string, unknown>;
  createdBy?: string | null;
}

export interface IngestTextResult {
  document: DocumentView;
  /** Null when nothing changed. */
  jobId: string | null;
  outcome: 'created' | 'updated' | 'unchanged';
  contentHash: string;
}

export const SOURCE_TEXT_FILENAME = 'content.txt';

/**
 * Creates or updates the document of a text and queues its processing. Unchanged text (same sha256 of the
 * normalised text as the item's document, not failed) is skipped. Records the item's hash in source_items
 * when `sourceId` and `itemKey` are given.
 */
export async function ingestText(deps: KnowledgeDeps, input: IngestTextInput): Promise<IngestTextResult> {
  const repos = deps.store.repos;
  const kb = await repos.knowledgeBases.findById(input.organizationId, input.knowledgeBaseId);
  if (!kb) throw new DomainError('NOT_FOUND', 'Knowledge base not found');
  if ((input.sourceId === undefined) !== (input.itemKey === undefined))
    throw new DomainError('VALIDATION', 'sourceId and itemKey go together');
  const text = normalizeWhitespace(input.text);
  if (!text) throw new DomainError('VALIDATION', `No text to index in "${input.title}"`);
  const hash = contentHash(text);
  const bytes = Buffer.from(text, 'utf8');
  const title = input.title.trim().slice(0, 500) || 'Untitled';
  const now = deps.clock.now().toISOString();
  const existing = input.sourceId ? await repos.documents.findBySourceItem(kb.organizationId, input.sourceId, input.itemKey!) : null;
  const recordItem = (documentId: string) =>
    input.sourceId
      ? repos.sources.putItem({ sourceId: input.sourceId, itemKey: input.itemKey!, contentHash: hash, documentId })
      : Promise.resolve();

  if (existing && existing.contentHash === hash && existing.processingStatus !== 'failed') {
    await recordItem(existing.id);
    return { document: toDocumentView(existing), jobId: null, outcome: 'unchanged', contentHash: hash };
  }
  const jobId = deps.ids.uuid();
  const id = existing?.id ?? deps.ids.uuid();
  const blobKey = blobKeyFor({ organizationId: kb.organizationId, knowledgeBaseId: kb.id, id }, SOURCE_TEXT_FILENAME);
  await deps.blobs.put(blobKey, bytes, 'text/plain');
  const metadata = {
    ...(existing?.metadata ?? {}),
    ...(input.metadata ?? {}),
    ...(input.contentType ? { contentType: input.contentType } : {}),
  };
  // The document, its source item and its job (with the queue message) commit together.
  const doc = await deps.store.transaction(async () => {
    let doc: KnowledgeDocument;
    if (existing) {
      const updated = await repos.documents.update(kb.organizationId, existing.id, {
        title,
        mimeType: 'text/plain',
        fileSizeBytes: bytes.length,
        processingStatus: 'pending',
        error: null,
        blobKey,
        contentHash: hash,
        metadata,
        jobId,
        updatedAt: now,
      });
      if (!updated) throw new DomainError('NOT_FOUND', 'Document not found');
      doc = updated;
    } else {
      doc = {
        id,
        organizationId: kb.organizationId,
        knowledgeBaseId: kb.id,
        title,
        mimeType: 'text/plain',
        fileSizeBytes: bytes.length,
        processingStatus: 'pending',
        error: null,
        chunkCount: 0,
        blobKey,
        contentHash: hash,
        sourceId: input.sourceId ?? null,
        sourceItemKey: input.itemKey ?? null,
        summary: null,
        topics: [],
        metadata,
        jobId,
        createdBy: input.createdBy ?? null,
        createdAt: now,
        updatedAt: now,
        processedAt: null,
      };
      await repos.documents.create(doc);
    }
    await recordItem(doc.id);
    await enqueueIngestion(deps, doc, jobId);
    return doc;
  });
  return { document: toDocumentView(doc), jobId, outcome: existing ? 'updated' : 'created', contentHash: hash };
}

/** Deletes a document with its chunks and stored content (e.g. an item gone from its source). */
export async function removeDocument(
  deps: KnowledgeDeps,
  organizationId: string,
  documentId: string,
): Promise<{ deleted: boolean; chunksDeleted: number }> {
  const doc = await deps.store.repos.documents.findById(organizationId, documentId);
  if (!doc) return { deleted: false, chunksDeleted: 0 };
  await deps.store.repos.documents.delete(organizationId, documentId);
  const chunksDeleted = await deps.vectorIndex.deleteByDocument(organizationId, documentId);
  if (doc.blobKey) await deps.blobs.delete(doc.blobKey).catch(() => undefined);
  return { deleted: true, chunksDeleted };
}
