/**
 * The chunk store behind retrieval: dense vectors for semantic search plus the chunk text for full-text
 * search, in one index. Adapters: pgvector (+ tsvector) in the relational Postgres, Elasticsearch
 * (dense_vector + BM25). Nothing here is SQL- or vendor-shaped.
 *
 * Every call is scoped to one organization: a chunk of another organization is never returned, counted
 * or deleted, whatever ids are passed.
 */

/** What a chunk's vector was computed from (spec 2.8 `embeddingType`). */
export type EmbeddingType = 'text' | 'image' | 'video' | 'audio' | 'transcript';

export interface VectorChunk {
  /** Stable per (documentId, chunkIndex): writing the same chunk twice replaces it (see `chunkId`). */
  id: string;
  organizationId: string;
  knowledgeBaseId: string;
  documentId: string;
  chunkIndex: number;
  content: string;
  /** Unit length. Its length (the dimensions) picks the space it is stored in. */
  embedding: number[];
  embeddingType: EmbeddingType;
  /** 0-1 prior weight of the chunk in ranking (0.5 when nothing is known). */
  importance: number;
  /** Small JSON object returned with hits (document title, offsets...). */
  metadata: Record<string, unknown>;
}

export type StoredChunk = Omit<VectorChunk, 'embedding'>;

export interface HybridSearchQuery {
  organizationId: string;
  /** Only chunks of these knowledge bases (of that organization). */
  knowledgeBaseIds: string[];
  /** Query vector (unit length), or null for full-text only. Only chunks of the same dimensions match. */
  embedding: number[] | null;
  /** Query text for full-text search, or null/empty for vector only. */
  text: string | null;
  /** Candidates per knowledge base in each list (so one large knowledge base cannot crowd out the others). */
  candidatesPerKnowledgeBase: number;
}

export interface Candidate {
  chunk: StoredChunk;
  /**
   * Cosine similarity mapped to 0-1 (negative similarities count as 0). Always set on vector candidates;
   * on text candidates when the adapter can compute it cheaply, else null.
   */
  vectorScore: number | null;
  /**
   * Full-text relevance normalised to 0-1 (0 = no query term matched). Always set on text candidates;
   * on vector candidates when the adapter can compute it cheaply, else null.
   */
  textScore: number | null;
}

export interface HybridCandidates {
  /** Nearest neighbours, best first. */
  vector: Candidate[];
  /** Full-text matches (at least one query term), best first. */
  text: Candidate[];
}

export interface VectorIndex {
  readonly id: string;
  /** Inserts or replaces chunks by id. */
  upsert(chunks: VectorChunk[]): Promise<void>;
  /**
   * Makes `chunks` the complete chunk set of the document: chunks of the document not in the list go, the
   * rest are upserted. Safe to repeat (a redelivered ingestion job converges to the same state).
   */
  replaceDocument(
    ref: { organizationId: string; knowledgeBaseId: string; documentId: string },
    chunks: VectorChunk[],
  ): Promise<{ deleted: number; written: number }>;
  /** Returns how many chunks went. */
  deleteByDocument(organizationId: string, documentId: string): Promise<number>;
  deleteByKnowledgeBase(organizationId: string, knowledgeBaseId: string): Promise<number>;
  countByDocument(organizationId: string, documentId: string): Promise<number>;
  search(query: HybridSearchQuery): Promise<HybridCandidates>;
  close(): Promise<void>;
}
export const VECTOR_INDEX = Symbol.for('VectorIndex');
