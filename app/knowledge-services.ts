import { offloadedEmbedder } from '../adapters/local-ai/pooled-local.embedder';
import type { BillingDeps } from '../core/billing/billing';
import { leasedHandler } from '../core/jobs/job-leases';
import { DEFAULT_CHUNK_OVERLAP, DEFAULT_CHUNK_SIZE } from '../core/knowledge/chunker';
import type { IngestJobPayload } from '../core/knowledge/documents';
import { abandonIngestion, processIngestJob } from '../core/knowledge/ingest-document';
import { INGEST_QUEUE, type KnowledgeDeps } from '../core/knowledge/knowledge-deps';
import { tablePricing } from '../core/knowledge/pricing';
import { bundledCatalogue } from '../core/models/bundled-catalogue';
import type { Job } from '../core/ports/job-queue';
import type { Consumer } from './consumer';
import { ingestionStepsWithGraph } from './graph-services';
import type { Infrastructure } from './infrastructure';
import { buildLeaseDeps, jobTracker } from './jobs-services';

/** Attempts of one ingestion job (transient provider failures) before the document is marked failed. */
export const INGEST_MAX_ATTEMPTS = 3;

export function buildKnowledgeDeps(infra: Infrastructure, billing: BillingDeps): KnowledgeDeps {
  const k = infra.knowledge;
  const embedder = offloadedEmbedder(k.embedder, k.heavyWork);
  const prices = new Map(
    bundledCatalogue()
      .filter((m) => m.capabilities.embeddings)
      .map((m) => [m.id, m.promptPricePerToken]),
  );
  return {
    store: infra.store,
    clock: infra.clock,
    ids: infra.ids,
    blobs: infra.blobs,
    queue: infra.queue,
    vectorIndex: k.vectorIndex,
    embedder,
    reranker: k.reranker,
    loader: k.documentLoader,
    heavyWork: k.heavyWork,
    imageDescriber: k.imageDescriber,
    billing,
    pricing: tablePricing(prices),
    jobs: jobTracker(infra),
    graph: k.graphStore,
    graphSearch: k.graphSearch,
    settings: {
      uploadMaxBytes: infra.config.uploads.maxBytes,
      defaultEmbedding: { model: k.embedder.model, dimensions: k.embeddingDimensions },
      defaultChunking: { size: DEFAULT_CHUNK_SIZE, overlap: DEFAULT_CHUNK_OVERLAP },
      embedBatchSize: 64,
      // pooled offline batches fill the heavy-work threads; a remote provider keeps one call at a time
      embedConcurrency: embedder === k.embedder ? 1 : 2,
      ingestMaxAttempts: INGEST_MAX_ATTEMPTS,
    },
    log: (level, message, extra) => infra.log(level, message, extra),
    recorder: infra.analytics.recorder,
    learningPrior: infra.analytics.learning,
  };
}

/** The worker of `knowledge.ingest`. */
export const knowledgeIngestConsumer: Consumer<{ knowledge: KnowledgeDeps }> = {
  queue: INGEST_QUEUE,
  start: (infra, services) => {
    // The pipeline with graph extraction after `store` (app/graph-services.ts).
    const steps = ingestionStepsWithGraph(infra, services.knowledge.billing);
    const counted = async (job: Job<IngestJobPayload>) => {
      let outcome: string = 'retrying';
      try {
        outcome = await processIngestJob(services.knowledge, job, steps);
      } finally {
        // Ingestion rates for /metrics: documents by outcome, chunks of the completed ones.
        const { organizationId, documentId } = job.payload;
        const doc =
          outcome === 'completed' ? await infra.store.repos.documents.findById(organizationId, documentId).catch(() => null) : null;
        infra.metrics.documentIngested(outcome, doc?.chunkCount ?? 0);
      }
    };
    const leased = leasedHandler(buildLeaseDeps(infra), counted, {
      maxAttempts: INGEST_MAX_ATTEMPTS,
      onExhausted: (job, error) => abandonIngestion(services.knowledge, job, error),
    });
    return infra.queue.consume<IngestJobPayload>(INGEST_QUEUE, leased, {
      concurrency: 2,
      maxAttempts: INGEST_MAX_ATTEMPTS,
      backoffMs: 2000,
    });
  },
};
