/**
 * Adapters of the knowledge area, chosen by configuration: vector index (VECTOR_INDEX), embeddings and
 * rerank (a configured OpenAI or Cohere key replaces the offline local provider per capability),
 * optional media understanding (OpenAI vision and transcription), the document loader and the
 * SSRF-guarded outbound fetcher. Optional SDKs are imported only when selected.
 */
import { readFileSync } from 'node:fs';

import type { PlatformConfig } from '../adapters/config/platform-config';
import type { Database } from '../adapters/postgres/database';
import type { DocumentLoader } from '../core/ports/document-loader';
import type { Embedder } from '../core/ports/embedder';
import type { ImageDescriber, Transcriber } from '../core/ports/media-understanding';
import type { OutboundFetcher } from '../core/ports/outbound-fetcher';
import type { Reranker } from '../core/ports/reranker';
import type { VectorIndex } from '../core/ports/vector-index';

export interface KnowledgeAdapters {
  vectorIndex: VectorIndex;
  embedder: Embedder;
  /** Default size of new knowledge bases' embeddings for this embedder. */
  embeddingDimensions: number;
  reranker: Reranker | null;
  transcriber: Transcriber | null;
  imageDescriber: ImageDescriber | null;
  documentLoader: DocumentLoader;
  outbound: OutboundFetcher;
}

export interface KnowledgeAdapterOverrides {
  embedder?: { embedder: Embedder; dimensions: number };
  reranker?: Reranker | null;
  transcriber?: Transcriber | null;
  imageDescriber?: ImageDescriber | null;
  vectorIndex?: VectorIndex;
}

/** Offline embeddings default to 1024 dimensions (the spec's 3072 is the remote default; the local model gains nothing from more). */
export const LOCAL_EMBEDDING_DIMENSIONS = 1024;
export const OPENAI_EMBEDDING = { model: 'text-embedding-3-large', dimensions: 3072 };
/** Cohere embed-v4 offers at most 1536 dimensions. */
export const COHERE_EMBEDDING = { model: 'embed-v4.0', dimensions: 1536 };

async function embedderFor(config: PlatformConfig): Promise<{ embedder: Embedder; dimensions: number }> {
  const { openai, cohere } = config.providers;
  if (openai) {
    const { OpenAiEmbedder } = await import('../adapters/openai/openai.embedder');
    return { embedder: new OpenAiEmbedder({ ...openai, model: OPENAI_EMBEDDING.model }), dimensions: OPENAI_EMBEDDING.dimensions };
  }
  if (cohere) {
    const { CohereEmbedder } = await import('../adapters/cohere/cohere.embedder');
    return { embedder: new CohereEmbedder({ ...cohere, model: COHERE_EMBEDDING.model }), dimensions: COHERE_EMBEDDING.dimensions };
  }
  const { LocalEmbedder } = await import('../adapters/local-ai/local-hash.embedder');
  return { embedder: new LocalEmbedder(), dimensions: LOCAL_EMBEDDING_DIMENSIONS };
}

/**
 * Cohere rerank when a Cohere key is configured, else none: the local lexical reranker adds nothing over the
 * full-text score offline (bench/results/retrieval-quality.json), so retrieval skips the rerank step.
 */
async function rerankerFor(config: PlatformConfig): Promise<Reranker | null> {
  if (!config.providers.cohere) return null;
  const { CohereReranker } = await import('../adapters/cohere/cohere.reranker');
  return new CohereReranker(config.providers.cohere);
}

async function vectorIndexFor(config: PlatformConfig, db: Database): Promise<VectorIndex> {
  if (config.vectorIndex.driver === 'pgvector') {
    const { PgvectorVectorIndex } = await import('../adapters/pgvector/pgvector.vector-index');
    return PgvectorVectorIndex.open({ knex: db.knex });
  }
  const { ElasticsearchVectorIndex } = await import('../adapters/elasticsearch/elasticsearch.vector-index');
  return new ElasticsearchVectorIndex({ node: config.vectorIndex.url });
}

/** Opens the vector index first: a Postgres without pgvector fails boot before anything else is touched. */
export async function buildKnowledgeAdapters(
  config: PlatformConfig,
  db: Database,
  overrides: KnowledgeAdapterOverrides = {},
): Promise<KnowledgeAdapters> {
  const vectorIndex = overrides.vectorIndex ?? (await vectorIndexFor(config, db));
  const { embedder, dimensions } = overrides.embedder ?? (await embedderFor(config));
  const reranker = overrides.reranker !== undefined ? overrides.reranker : await rerankerFor(config);
  let transcriber: Transcriber | null = overrides.transcriber ?? null;
  let imageDescriber: ImageDescriber | null = overrides.imageDescriber ?? null;
  if (config.providers.openai) {
    if (overrides.transcriber === undefined)
      transcriber = new (await import('../adapters/openai/openai.transcriber')).OpenAiTranscriber(config.providers.openai);
    if (overrides.imageDescriber === undefined)
      imageDescriber = new (await import('../adapters/openai/openai.image-describer')).OpenAiImageDescriber(config.providers.openai);
  }
  const { MultiFormatDocumentLoader } = await import('../adapters/documents/multi-format.document-loader');
  const { SsrfGuardedFetcher } = await import('../adapters/outbound/ssrf-guarded.fetcher');
  return {
    vectorIndex,
    embedder,
    embeddingDimensions: dimensions,
    reranker,
    transcriber,
    imageDescriber,
    documentLoader: new MultiFormatDocumentLoader({ transcriber: transcriber ?? undefined, imageDescriber: imageDescriber ?? undefined }),
    outbound: new SsrfGuardedFetcher({
      allow: config.outboundAllow,
      extraCa: config.outboundCaFile ? [readFileSync(config.outboundCaFile, 'utf8')] : undefined,
    }),
  };
}
