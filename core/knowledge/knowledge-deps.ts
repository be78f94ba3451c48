import type { BillingDeps } from '../billing/billing';
import type { JobReporter } from '../jobs/job-reporter';
import type { BlobStore } from '../ports/blob-store';
import type { Clock } from '../ports/clock';
import type { DocumentLoader } from '../ports/document-loader';
import type { Embedder } from '../ports/embedder';
import type { GraphSearch } from '../ports/graph-search';
import type { GraphStore } from '../ports/graph-store';
import type { HeavyWork } from '../ports/heavy-work';
import type { IdGenerator } from '../ports/id-generator';
import type { JobQueue } from '../ports/job-queue';
import type { ImageDescriber } from '../ports/media-understanding';
import type { Reranker } from '../ports/reranker';
import type { RetrievalRecorder } from '../ports/retrieval-recorder';
import type { Store } from '../ports/store';
import type { VectorIndex } from '../ports/vector-index';
import type { ChunkingSettings, EmbeddingSettings } from './knowledge-base';
import type { LearningPriorSource } from './learning-prior';
import type { KnowledgePricing } from './pricing';

/** Queue of the ingestion pipeline (payload: IngestJobPayload). */
export const INGEST_QUEUE = 'knowledge.ingest';

export interface KnowledgeSettings {
  /** Largest accepted upload (config.uploads.maxBytes). */
  uploadMaxBytes: number;
  /** Embedding of new knowledge bases: the configured embedder's model and its default size. */
  defaultEmbedding: EmbeddingSettings;
  defaultChunking: ChunkingSettings;
  /** Texts per embedder call in the pipeline. */
  embedBatchSize: number;
  /** Embedder calls in flight at once (1 when absent): the offline embedder runs one per heavy-work thread. */
  embedConcurrency?: number;
  /** Deliveries of one ingestion job before the document is marked failed. */
  ingestMaxAttempts: number;
}

export type KnowledgeLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;

/** Everything the knowledge use cases need. Do not call the vector index inside `store.transaction`. */
export interface KnowledgeDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  blobs: BlobStore;
  queue: JobQueue;
  vectorIndex: VectorIndex;
  embedder: Embedder;
  /** Used by retrieval when present. */
  reranker: Reranker | null;
  loader: DocumentLoader;
  /** Chunking and summaries run here, off the request loop; inline when absent (tests of the core alone). */
  heavyWork?: HeavyWork;
  /** Describes images given to search; without it image search is refused with a clear message. */
  imageDescriber: ImageDescriber | null;
  billing: BillingDeps;
  pricing: KnowledgePricing;
  settings: KnowledgeSettings;
  log: KnowledgeLog;
  /** Where ingestion (and source syncs) report as jobs (docs/contracts.md "Jobs"); absent in tests that do not watch jobs. */
  jobs?: JobReporter;
  /** The knowledge graph: document and knowledge-base deletes remove their contributions. */
  graph?: GraphStore;
  /** Graph discovery run next to vector and text retrieval in search (spec 4.9). */
  graphSearch?: GraphSearch;
  /** Analytics of each search (buffered); absent: not recorded. */
  recorder?: RetrievalRecorder;
  /** Learned chunk priors applied in ranking (learning-prior.ts); absent: plain ranking. */
  learningPrior?: LearningPriorSource | null;
}
