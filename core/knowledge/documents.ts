import { createHash } from 'node:crypto';

import { audit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { activeOrganization } from '../identity/policy';
import type { DocumentKind } from '../ports/document-loader';
import { DomainError, isDomainError } from '../shared/errors';
import { optionalWebhookUrl } from '../webhooks/webhook-url';
import type { KnowledgeDocument } from './document';
import { INGESTION_JOB_KIND } from './ingestion-progress';
import { knowledgeBaseFor } from './kb-access';
import { INGEST_QUEUE, type KnowledgeDeps } from './knowledge-deps';

export interface DocumentView {
  id: string;
  knowledgeBaseId: string;
  title: string;
  mimeType: string;
  fileSizeBytes: number;
  processingStatus: KnowledgeDocument['processingStatus'];
  /** Why processing failed; null otherwise. */
  error: string | null;
  chunkCount: number;
  sourceId: string | null;
  createdAt: string;
  updatedAt: string;
  processedAt: string | null;
  /** Graph extraction status (spec 3.1): completed, partial, failed; null before extraction or when disabled. */
  graphStatus: string | null;
}

export const toDocumentView = (d: KnowledgeDocument): DocumentView => ({
  id: d.id,
  knowledgeBaseId: d.knowledgeBaseId,
  title: d.title,
  mimeType: d.mimeType,
  fileSizeBytes: d.fileSizeBytes,
  processingStatus: d.processingStatus,
  error: d.error,
  chunkCount: d.chunkCount,
  sourceId: d.sourceId,
  createdAt: d.createdAt,
  updatedAt: d.updatedAt,
  processedAt: d.processedAt,
  graphStatus: (d.metadata?.graphStatus as string | undefined) ?? null,
});

export interface IngestJobPayload {
  organizationId: string;
  documentId: string;
}

export interface UploadedFile {
  filename: string;
  declaredMimeType?: string;
  bytes: Buffer;
}

/** The last path segment, without control characters, at most 200 characters (keeps the extension). */
export function safeFilename(name: string): string {
  const base = (name.split(/[\\/]/).pop() ?? '').replace(/[\u0000-\u001f\u007f]/g, '').trim();
  if (!base || base === '.' || base === '..') return 'upload';
  if (base.length <= 200) return base;
  const dot = base.lastIndexOf('.');
  const ext = dot > 0 && base.length - dot <= 16 ? base.slice(dot) : '';
  return base.slice(0, 200 - ext.length) + ext;
}

export const blobKeyFor = (d: { organizationId: string; knowledgeBaseId: string; id: string }, filename: string) =>
  `${d.organizationId}/${d.knowledgeBaseId}/${d.id}/${filename}`;

export interface IngestionJobOptions {
  /** Checked HTTPS URL that receives the job's signed terminal event. */
  webhookUrl?: string | null;
  createdBy?: string | null;
}

/**
 * Records the ingestion job (readable at `/api/jobs/:jobId` at once) with its queue message, for a document whose
 * row says `pending` (new or retried). Call it in the transaction that writes the document: the message is sent
 * once that commits, and by the sweeper if it could not be (core/jobs/job-leases.ts), so an accepted document
 * always gets processed and a failed write leaves neither a document nor a job behind.
 */
export async function enqueueIngestion(
  deps: KnowledgeDeps,
  doc: KnowledgeDocument,
  jobId: string,
  options: IngestionJobOptions = {},
): Promise<string> {
  const payload: IngestJobPayload = { organizationId: doc.organizationId, documentId: doc.id };
  if (!deps.jobs) return deps.queue.enqueue<IngestJobPayload>(INGEST_QUEUE, payload, { jobId });
  await deps.jobs.start({
    id: jobId,
    organizationId: doc.organizationId,
    kind: INGESTION_JOB_KIND,
    stepLabel: 'Waiting to start',
    reference: { documentId: doc.id, knowledgeBaseId: doc.knowledgeBaseId },
    webhookUrl: options.webhookUrl ?? null,
    createdBy: options.createdBy ?? null,
    dispatch: { queue: INGEST_QUEUE, payload },
  });
  return jobId;
}

/**
 * Checks size and type (extension, declared type and magic numbers) before anything is stored, keeps the
 * original in the blob store, records the document as `pending` and queues its processing.
 */
/** Size, emptiness and type (extension, declared type and magic numbers), before anything is stored or looked up. */
async function checkUpload(deps: KnowledgeDeps, file: UploadedFile) {
  if (file.bytes.length > deps.settings.uploadMaxBytes) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `The file is larger than the ${deps.settings.uploadMaxBytes} bytes allowed`);
  }
  if (file.bytes.length === 0) throw new DomainError('VALIDATION', 'The file is empty');
  const filename = safeFilename(file.filename);
  const { mimeType, kind } = await deps.loader.detect({ bytes: file.bytes, filename, declaredMimeType: file.declaredMimeType });
  const missing = deps.loader.missingModelFor?.(kind);
  if (missing) throw new DomainError('NO_MODEL_FOR_FILE_TYPE', missing, { kind, mimeType });
  return { filename, mimeType, kind };
}

const uploadHash = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

/**
 * The document of this knowledge base already holding these exact bytes (an earlier upload), or null. The
 * upload endpoint answers with it instead of storing a second copy, unless the caller allows duplicates.
 */
export async function findDuplicateUpload(deps: KnowledgeDeps, actor: Actor, knowledgeBaseId: string, file: UploadedFile) {
  const kb = await knowledgeBaseFor(deps.store.repos, actor, knowledgeBaseId, 'edit');
  await checkUpload(deps, file); // a file that would be refused is refused, even when the same bytes are stored
  const existing = await deps.store.repos.documents.findUploadByContentHash(kb.organizationId, kb.id, uploadHash(file.bytes));
  if (!existing) return null;
  // The same file again after a failure that was not the file's: processed again rather than called a duplicate.
  if (await failedForInfrastructure(deps, existing)) {
    const jobId = await requeueFailed(deps, existing, { createdBy: actor.userId });
    const requeued = await deps.store.repos.documents.findById(existing.organizationId, existing.id);
    return { document: toDocumentView(requeued ?? existing), requeuedJobId: jobId };
  }
  return { document: toDocumentView(existing), requeuedJobId: null };
}

export async function uploadDocument(
  deps: KnowledgeDeps,
  actor: Actor,
  knowledgeBaseId: string,
  file: UploadedFile,
  options: { webhookUrl?: unknown } = {},
) {
  const kb = await knowledgeBaseFor(deps.store.repos, actor, knowledgeBaseId, 'edit');
  const webhookUrl = optionalWebhookUrl(options.webhookUrl);
  const { filename, mimeType } = await checkUpload(deps, file);
  const bytesHash = uploadHash(file.bytes);
  const now = deps.clock.now().toISOString();
  const id = deps.ids.uuid();
  const jobId = deps.ids.uuid();
  const doc: KnowledgeDocument = {
    id,
    organizationId: kb.organizationId,
    knowledgeBaseId: kb.id,
    title: filename,
    mimeType,
    fileSizeBytes: file.bytes.length,
    processingStatus: 'pending',
    error: null,
    chunkCount: 0,
    blobKey: blobKeyFor({ organizationId: kb.organizationId, knowledgeBaseId: kb.id, id }, filename),
    contentHash: bytesHash,
    sourceId: null,
    sourceItemKey: null,
    summary: null,
    topics: [],
    metadata: {},
    jobId,
    createdBy: actor.userId,
    createdAt: now,
    updatedAt: now,
    processedAt: null,
  };
  await deps.blobs.put(doc.blobKey!, file.bytes, mimeType);
  try {
    // The document, its job (with the queue message) and the audit line commit together or not at all.
    await deps.store.transaction(async (repos) => {
      await repos.documents.create(doc);
      await enqueueIngestion(deps, doc, jobId, { webhookUrl, createdBy: actor.userId });
      await audit(deps, repos, actor.userId, kb.organizationId, 'document.upload', ['document', id], {
        knowledgeBaseId: kb.id,
        filename,
        mimeType,
        bytes: file.bytes.length,
      });
    });
  } catch (error) {
    await deps.blobs.delete(doc.blobKey!).catch(() => undefined);
    throw error;
  }
  return { document: toDocumentView(doc), jobId, message: 'Document uploaded; processing started' };
}

export async function listDocuments(
  deps: KnowledgeDeps,
  actor: Actor,
  knowledgeBaseId: string,
  page: { limit: number; offset: number; status?: KnowledgeDocument['processingStatus'] },
) {
  const kb = await knowledgeBaseFor(deps.store.repos, actor, knowledgeBaseId, 'read');
  const { items, total } = await deps.store.repos.documents.list(kb.organizationId, kb.id, page);
  return { documents: items.map(toDocumentView), total, limit: page.limit, offset: page.offset };
}

async function documentOf(deps: KnowledgeDeps, actor: Actor, knowledgeBaseId: string, documentId: string, permission: 'read' | 'edit') {
  const kb = await knowledgeBaseFor(deps.store.repos, actor, knowledgeBaseId, permission);
  const doc = await deps.store.repos.documents.findById(kb.organizationId, documentId);
  if (!doc || doc.knowledgeBaseId !== kb.id) throw new DomainError('NOT_FOUND', 'Document not found');
  return doc;
}

export async function getDocument(deps: KnowledgeDeps, actor: Actor, knowledgeBaseId: string, documentId: string) {
  return { document: toDocumentView(await documentOf(deps, actor, knowledgeBaseId, documentId, 'read')) };
}

/** Deletes the row first (a running ingestion then skips it), then its chunks and original file. */
export async function deleteDocument(deps: KnowledgeDeps, actor: Actor, knowledgeBaseId: string, documentId: string) {
  const doc = await documentOf(deps, actor, knowledgeBaseId, documentId, 'edit');
  await deps.store.repos.documents.delete(doc.organizationId, doc.id);
  await audit(deps, deps.store.repos, actor.userId, doc.organizationId, 'document.delete', ['document', doc.id], {
    knowledgeBaseId: doc.knowledgeBaseId,
    title: doc.title,
  });
  const chunksDeleted = await deps.vectorIndex.deleteByDocument(doc.organizationId, doc.id);
  await deps.graph?.deleteByDocument({ organizationId: doc.organizationId, knowledgeBaseId: doc.knowledgeBaseId }, doc.id);
  if (doc.blobKey)
    await deps.blobs.delete(doc.blobKey).catch((error) => deps.log('warn', `document ${doc.id}: original file not deleted`, error));
  return { message: 'Document deleted', documentId: doc.id, chunksDeleted };
}

/**
 * Only a failed document can be retried: back to pending with a new job, which keeps the webhook of the
 * failed job unless the request names another.
 */
export async function retryDocument(
  deps: KnowledgeDeps,
  actor: Actor,
  knowledgeBaseId: string,
  documentId: string,
  options: { webhookUrl?: unknown } = {},
) {
  const doc = await documentOf(deps, actor, knowledgeBaseId, documentId, 'edit');
  const requested = optionalWebhookUrl(options.webhookUrl);
  if (doc.processingStatus !== 'failed') {
    throw new DomainError('INVALID_STATE', `Only failed documents can be retried; this one is ${doc.processingStatus}`);
  }
  const jobId = await requeueFailed(deps, doc, { webhookUrl: requested, createdBy: actor.userId });
  return { message: 'Document queued for processing', documentId: doc.id, jobId };
}

/** A failed document back to pending with a new job (keeping the failed job's webhook unless another is named). */
async function requeueFailed(deps: KnowledgeDeps, doc: KnowledgeDocument, options: IngestionJobOptions): Promise<string> {
  const jobId = deps.ids.uuid();
  return deps.store.transaction(async (repos) => {
    const moved = await repos.documents.transition(doc.organizationId, doc.id, ['failed'], 'pending', {
      jobId,
      error: null,
      updatedAt: deps.clock.now().toISOString(),
    });
    if (!moved) throw new DomainError('INVALID_STATE', 'The document changed state meanwhile; reload it');
    const previous = doc.jobId ? await repos.jobs.find(doc.jobId) : null;
    return enqueueIngestion(deps, moved, jobId, {
      webhookUrl: options.webhookUrl ?? previous?.webhookUrl ?? null,
      createdBy: options.createdBy,
    });
  });
}

/** Failed for a reason outside the file (interrupted, the database or a provider away): worth processing again. */
async function failedForInfrastructure(deps: KnowledgeDeps, doc: KnowledgeDocument): Promise<boolean> {
  if (doc.processingStatus !== 'failed' || !doc.jobId) return false;
  const job = await deps.store.repos.jobs.find(doc.jobId);
  return job?.error?.retryable === true;
}

export interface ExtractedText {
  text: string;
  title: string;
  mimeType: string;
  kind: DocumentKind;
  images: { ref: string; mimeType: string; description?: string }[];
  metadata: Record<string, unknown>;
  characterCount: number;
}

/** Text and images of a file without indexing it (any member of an organization). */
export async function extractText(deps: KnowledgeDeps, actor: Actor, file: UploadedFile): Promise<ExtractedText> {
  activeOrganization(actor);
  if (file.bytes.length > deps.settings.uploadMaxBytes) {
    throw new DomainError('PAYLOAD_TOO_LARGE', `The file is larger than the ${deps.settings.uploadMaxBytes} bytes allowed`);
  }
  const filename = safeFilename(file.filename);
  const input = { bytes: file.bytes, filename, declaredMimeType: file.declaredMimeType };
  const { kind } = await deps.loader.detect(input);
  try {
    const loaded = await deps.loader.load(input);
    return {
      text: loaded.text,
      title: loaded.title ?? filename,
      mimeType: loaded.mimeType,
      kind,
      images: loaded.images,
      metadata: loaded.metadata,
      characterCount: loaded.text.length,
    };
  } catch (error) {
    // A capability that is not configured is a property of the request here, not a missing route.
    if (isDomainError(error) && error.code === 'NOT_CONFIGURED') throw new DomainError('VALIDATION', error.message, error.details);
    throw error;
  }
}

/**
 * Platform administration (the `reindex` command): queues every document of a knowledge base for processing
 * again through the job queue, as a retry does. Documents already waiting or being processed are left alone.
 */
export async function reindexKnowledgeBase(deps: KnowledgeDeps, knowledgeBaseId: string) {
  const kb = await deps.store.repos.knowledgeBases.findAnyById(knowledgeBaseId);
  if (!kb) throw new DomainError('NOT_FOUND', 'Knowledge base not found');
  const queued: { documentId: string; jobId: string }[] = [];
  let skipped = 0;
  for (let offset = 0; ; offset += 200) {
    const { items } = await deps.store.repos.documents.list(kb.organizationId, kb.id, { limit: 200, offset });
    for (const doc of items) {
      const jobId = deps.ids.uuid();
      const at = deps.clock.now().toISOString();
      const moved = await deps.store.transaction(async (repos) => {
        const pending = await repos.documents.transition(doc.organizationId, doc.id, ['completed', 'failed'], 'pending', {
          jobId,
          error: null,
          updatedAt: at,
        });
        if (pending) await enqueueIngestion(deps, pending, jobId, { createdBy: null });
        return pending;
      });
      if (!moved) {
        skipped++;
        continue;
      }
      queued.push({ documentId: doc.id, jobId });
    }
    if (items.length < 200) break;
  }
  return { knowledgeBaseId: kb.id, organizationId: kb.organizationId, queued, skipped };
}
