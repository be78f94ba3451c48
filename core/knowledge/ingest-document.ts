import { charge } from '../billing/billing';
import type { JobError } from '../jobs/job';
import type { Job } from '../ports/job-queue';
import { isDomainError } from '../shared/errors';
import type { IngestJobPayload } from './documents';
import { ingestionReporter } from './ingestion-progress';
import {
  defaultIngestionSteps,
  DocumentStale,
  type IngestionContext,
  type IngestionStep,
  loadedHash,
  startPrepared,
} from './ingestion-steps';
import type { KnowledgeDeps } from './knowledge-deps';

export type IngestOutcome = 'completed' | 'failed' | 'skipped' | 'retrying';

/** Failures that another attempt cannot fix: bad or empty files, missing capabilities, no credits. */
const PERMANENT = new Set([
  'VALIDATION',
  'NOT_CONFIGURED',
  'UNSUPPORTED_MEDIA_TYPE',
  'PAYLOAD_TOO_LARGE',
  'INSUFFICIENT_CREDITS',
  'NOT_FOUND',
]);

const reasonOf = (error: unknown) =>
  isDomainError(error) ? error.message : `Processing failed unexpectedly: ${error instanceof Error ? error.message : String(error)}`;

/**
 * The `knowledge.ingest` job: pending -> processing -> completed | failed (spec 3.1). Idempotent under
 * redelivery: chunks are replaced per document (stable chunk ids), a stale job (the document was retried
 * since, or already finished) and a deleted document are skipped, and chunks written for a document deleted
 * meanwhile are removed again. Transient failures (provider or network errors) put the document back to
 * pending and throw so the queue retries; the last attempt marks it failed.
 */
export async function processIngestJob(
  deps: KnowledgeDeps,
  job: Job<IngestJobPayload>,
  steps: readonly IngestionStep[] = defaultIngestionSteps,
): Promise<IngestOutcome> {
  const { organizationId, documentId } = job.payload;
  const repos = deps.store.repos;
  const progress = ingestionReporter(deps, job.id, steps);
  const current = await repos.documents.findById(organizationId, documentId);
  if (
    !current ||
    (current.jobId && current.jobId !== job.id) ||
    current.processingStatus === 'completed' ||
    current.processingStatus === 'failed'
  ) {
    deps.log('debug', `ingest ${documentId}: skipped (${current ? `${current.processingStatus}, job ${current.jobId}` : 'deleted'})`);
    // A redelivery converges the job on the document's outcome; a deleted or re-queued document cancels it.
    if (current && current.jobId === job.id && current.processingStatus === 'completed')
      await progress.completed({ documentId, knowledgeBaseId: current.knowledgeBaseId, chunkCount: current.chunkCount }, {});
    else if (current && current.jobId === job.id) await progress.failed(null, current.error ?? 'Processing failed', true);
    else await progress.cancelled('The document was deleted or queued again before this job ran');
    return 'skipped';
  }
  const now = () => deps.clock.now().toISOString();
  const document = await repos.documents.transition(
    organizationId,
    documentId,
    ['pending', 'processing'],
    'processing',
    { updatedAt: now(), error: null },
    { jobId: current.jobId ?? undefined },
  );
  if (!document) return 'skipped';
  const knowledgeBase = await repos.knowledgeBases.findById(organizationId, document.knowledgeBaseId);
  if (!knowledgeBase) {
    await progress.cancelled('The knowledge base was deleted');
    return 'skipped';
  }

  const ctx: IngestionContext = {
    deps,
    document,
    knowledgeBase,
    loaded: null,
    chunks: [],
    vectors: [],
    embeddingType: 'text',
    digest: null,
    usage: { embeddingTokens: 0 },
    counters: {},
    warnings: {},
    metadata: {},
    prepared: new Map(),
    isStale: async () => {
      const now = await repos.documents.findById(organizationId, documentId);
      return !now || (!!now.jobId && now.jobId !== job.id);
    },
  };
  // Compensated in reverse when a required step fails, that step included: a store may have written part of its rows.
  const started: IngestionStep[] = [];
  // Where a document's processing time went, kept on its metadata (what an operator asks of a slow document).
  const stepMs: Record<string, number> = {};
  try {
    for (const step of steps) {
      await progress.step(step);
      const startedAt = deps.clock.now().getTime();
      started.push(step);
      try {
        await step.run(ctx);
        stepMs[step.id] = deps.clock.now().getTime() - startedAt;
        startPrepared(steps, step, ctx);
      } catch (error) {
        if (!step.optional || error instanceof DocumentStale) throw error;
        started.pop(); // a failed optional step is not undone
        ctx.warnings[step.id] = reasonOf(error);
        deps.log('warn', `ingest ${documentId}: optional step ${step.id} failed`, error);
      }
    }
  } catch (error) {
    if (error instanceof DocumentStale) {
      await progress.cancelled('The document was deleted or queued again while processing');
      return 'skipped'; // a newer job owns the chunks now
    }
    for (const step of started.reverse()) {
      await step.compensate?.(ctx).catch((e) => deps.log('error', `ingest ${documentId}: compensation of ${step.id} failed`, e));
    }
    const permanent = isDomainError(error) && PERMANENT.has(error.code);
    const maxAttempts = deps.settings.ingestMaxAttempts;
    if (!permanent && job.attempt < maxAttempts) {
      const retrying = `Attempt ${job.attempt} of ${maxAttempts} failed, retrying: ${reasonOf(error)}`;
      await repos.documents.transition(
        organizationId,
        documentId,
        ['processing'],
        'pending',
        { error: retrying, updatedAt: now() },
        { jobId: job.id },
      );
      await progress.retrying(retrying);
      throw error;
    }
    deps.log(permanent ? 'info' : 'warn', `ingest ${documentId}: failed`, error);
    await repos.documents.transition(
      organizationId,
      documentId,
      ['processing', 'pending'],
      'failed',
      { error: reasonOf(error), chunkCount: 0, updatedAt: now() },
      { jobId: job.id },
    );
    await progress.failed(error, reasonOf(error), !permanent);
    return 'failed';
  }

  const model = deps.embedder.model;
  // The charge and the state it pays for commit together: a worker that dies between them bills nothing, and a
  // redelivered job finds the document completed and bills nothing again.
  const completed = await deps.store.transaction(async (trx) => {
    const done = await trx.documents.transition(
      organizationId,
      documentId,
      ['processing'],
      'completed',
      {
        chunkCount: ctx.chunks.length,
        contentHash: document.contentHash ?? loadedHash(ctx),
        summary: ctx.digest?.summary ?? null,
        topics: ctx.digest?.topics ?? [],
        metadata: {
          ...document.metadata,
          ...(ctx.loaded?.metadata ?? {}),
          ...ctx.metadata,
          counters: ctx.counters,
          stepMs,
          ...(Object.keys(ctx.warnings).length ? { warnings: ctx.warnings } : {}),
        },
        error: null,
        processedAt: now(),
        updatedAt: now(),
      },
      { jobId: job.id },
    );
    if (done)
      await charge(
        deps.billing,
        {
          organizationId,
          kind: 'document_processing',
          model,
          promptTokens: ctx.usage.embeddingTokens,
          providerCostUsd: deps.pricing.embeddingUsd(model, ctx.usage.embeddingTokens),
          reference: { documentId, knowledgeBaseId: document.knowledgeBaseId, chunks: ctx.chunks.length },
        },
        trx,
      );
    return done;
  });
  if (!completed) {
    // deleted (or retried) while we were writing: do not leave its chunks behind
    if (!(await repos.documents.findById(organizationId, documentId))) {
      await deps.vectorIndex.deleteByDocument(organizationId, documentId);
      await deps.graph?.deleteByDocument({ organizationId, knowledgeBaseId: document.knowledgeBaseId }, documentId);
    }
    await progress.cancelled('The document was deleted or queued again while processing');
    return 'skipped';
  }
  await progress.completed({ documentId, knowledgeBaseId: document.knowledgeBaseId, chunkCount: ctx.chunks.length }, ctx.warnings);
  return 'completed';
}

/**
 * A document whose every attempt was interrupted (its worker died, the database was away): failed with the reason,
 * its partial chunks and graph facts removed, its job failed, so it can be retried and nothing counts half of it.
 */
export async function abandonIngestion(deps: KnowledgeDeps, job: Job<IngestJobPayload>, error: JobError): Promise<void> {
  const { organizationId, documentId } = job.payload;
  const repos = deps.store.repos;
  const failed = await repos.documents.transition(
    organizationId,
    documentId,
    ['pending', 'processing'],
    'failed',
    { error: error.message, chunkCount: 0, updatedAt: deps.clock.now().toISOString() },
    { jobId: job.id },
  );
  if (failed) {
    await deps.vectorIndex.deleteByDocument(organizationId, documentId);
    await deps.graph?.deleteByDocument({ organizationId, knowledgeBaseId: failed.knowledgeBaseId }, documentId);
  }
  await deps.jobs?.fail(job.id, error);
}
