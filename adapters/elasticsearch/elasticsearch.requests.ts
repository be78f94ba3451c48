/**
 * Every request body the Elasticsearch vector index sends, as pure functions (pinned by the contract tests
 * in this folder and the recorded pairs under test/contracts/elasticsearch/).
 */
import type { estypes } from '@elastic/elasticsearch';

import type { VectorChunk } from '../../core/ports/vector-index';

/** Largest `dims` of an indexed dense_vector. */
export const MAX_DIMS = 4096;
/** Upper bound of the candidates per knowledge base (as the pgvector adapter). */
export const MAX_K = 1000;
/** Upper bound of `num_candidates` in Elasticsearch. */
export const MAX_NUM_CANDIDATES = 10_000;
/**
 * The int8-quantized HNSW graph finds k * RESCORE_OVERSAMPLE neighbours, which Elasticsearch re-scores with
 * the original float vectors: the returned `_score` is the exact cosine, as in pgvector.
 */
export const RESCORE_OVERSAMPLE = 2;
/** Approximate-kNN breadth: num_candidates = clamp(k * factor, MIN, MAX_K). */
export const NUM_CANDIDATES_FACTOR = 10;
export const MIN_NUM_CANDIDATES = 100;

/** Fields returned with every hit (the embedding never comes back). */
export const SOURCE_FIELDS = [
  'organization_id',
  'knowledge_base_id',
  'document_id',
  'chunk_index',
  'content',
  'embedding_type',
  'importance',
  'metadata',
];

/** The stored document of a chunk (the chunk id is the document `_id`). */
export interface ChunkDocument {
  organization_id: string;
  knowledge_base_id: string;
  document_id: string;
  chunk_index: number;
  content: string;
  embedding: number[];
  embedding_type: string;
  importance: number;
  metadata: Record<string, unknown>;
}

export const indexName = (prefix: string, dims: number) => `${prefix}-chunks-d${dims}`;
/** Every chunk index of the prefix, whatever its dimensions (text search, deletes, counts). */
export const allIndicesPattern = (prefix: string) => `${prefix}-chunks-d*`;

/** Explicit mapping of a chunk index; `dynamic: strict` refuses any field not listed. */
export function chunkIndexMappings(dims: number): estypes.MappingTypeMapping {
  return {
    dynamic: 'strict',
    properties: {
      organization_id: { type: 'keyword' },
      knowledge_base_id: { type: 'keyword' },
      document_id: { type: 'keyword' },
      chunk_index: { type: 'integer' },
      // english (stemming + English stop words), like the pgvector adapter's default text search configuration
      content: { type: 'text', analyzer: 'english' },
      embedding: {
        type: 'dense_vector',
        dims,
        index: true,
        similarity: 'cosine',
        index_options: { type: 'int8_hnsw', m: 16, ef_construction: 100 },
      },
      embedding_type: { type: 'keyword' },
      importance: { type: 'float' },
      metadata: { type: 'object', enabled: false },
    },
  };
}

export function chunkDocument(c: VectorChunk): ChunkDocument {
  return {
    organization_id: c.organizationId,
    knowledge_base_id: c.knowledgeBaseId,
    document_id: c.documentId,
    chunk_index: c.chunkIndex,
    content: c.content,
    embedding: c.embedding,
    embedding_type: c.embeddingType,
    importance: c.importance,
    metadata: c.metadata,
  };
}

const term = (field: string, value: string): estypes.QueryDslQueryContainer => ({ term: { [field]: value } });

/** The organization filter, first in every read and delete. */
export const orgFilter = (organizationId: string) => term('organization_id', organizationId);

export const documentQuery = (organizationId: string, documentId: string): estypes.QueryDslQueryContainer => ({
  bool: { filter: [orgFilter(organizationId), term('document_id', documentId)] },
});

export const knowledgeBaseQuery = (organizationId: string, knowledgeBaseId: string): estypes.QueryDslQueryContainer => ({
  bool: { filter: [orgFilter(organizationId), term('knowledge_base_id', knowledgeBaseId)] },
});

/**
 * The document's chunks that are not part of the new set: a chunk is kept only when its id is in the set
 * of ids written to that very index (a copy left in an index of other dimensions goes too).
 */
export function staleChunksQuery(
  ref: { organizationId: string; documentId: string },
  keep: { index: string; ids: string[] }[],
): estypes.QueryDslQueryContainer {
  const base = documentQuery(ref.organizationId, ref.documentId);
  if (keep.length === 0) return base;
  return {
    bool: {
      filter: [orgFilter(ref.organizationId), term('document_id', ref.documentId)],
      must_not: keep.map((k) => ({ bool: { filter: [term('_index', k.index), { ids: { values: k.ids } }] } })),
    },
  };
}

export const numCandidates = (k: number) => Math.min(MAX_NUM_CANDIDATES, Math.max(MIN_NUM_CANDIDATES, k * NUM_CANDIDATES_FACTOR));

/** Approximate kNN over one knowledge base of the organization. */
export function knnSearchBody(organizationId: string, knowledgeBaseId: string, vector: number[], k: number): estypes.SearchRequest {
  return {
    knn: {
      field: 'embedding',
      query_vector: vector,
      k,
      num_candidates: numCandidates(k),
      filter: knowledgeBaseQuery(organizationId, knowledgeBaseId),
      rescore_vector: { oversample: RESCORE_OVERSAMPLE },
    },
    size: k,
    _source: SOURCE_FIELDS,
    track_total_hits: false,
  };
}

/** Longest query text considered (as the pgvector adapter) and most distinct terms matched one by one. */
export const MAX_QUERY_CHARS = 4000;
export const MAX_QUERY_TERMS = 64;

/** Lucene's English stop words (the `english` analyzer drops them, as Postgres' `english` configuration does). */
const ENGLISH_STOP_WORDS = new Set(
  'a an and are as at be but by for if in into is it no not of on or such that the their then there these they this to was will with'.split(
    ' ',
  ),
);

/**
 * The distinct words of a query, lower-cased, without English stop words: each becomes one named `match`
 * clause, so a hit's `matched_queries` tells which share of the query it covers.
 */
export function queryTerms(text: string): string[] {
  const words = text
    .slice(0, MAX_QUERY_CHARS)
    .toLowerCase()
    .replace(/['\u2019]s\b/gu, '')
    .split(/[^\p{L}\p{N}]+/u)
    .filter((w) => w.length > 0 && !ENGLISH_STOP_WORDS.has(w));
  return [...new Set(words)].slice(0, MAX_QUERY_TERMS);
}

/** Name of the clause of the i-th query term. */
export const termName = (i: number) => `t${i}`;

/** Any of the terms on `content` (BM25), one named clause per term. */
const matchAnyTerm = (terms: string[], filter: estypes.QueryDslQueryContainer[]): estypes.QueryDslQueryContainer => ({
  bool: {
    should: terms.map((t, i) => ({ match: { content: { query: t, _name: termName(i) } } })),
    minimum_should_match: 1,
    filter,
  },
});

/** BM25 over one knowledge base of the organization (at least one query term must match). */
export function textSearchBody(organizationId: string, knowledgeBaseId: string, terms: string[], k: number): estypes.SearchRequest {
  return {
    query: matchAnyTerm(terms, [orgFilter(organizationId), term('knowledge_base_id', knowledgeBaseId)]),
    size: k,
    _source: SOURCE_FIELDS,
    track_total_hits: false,
  };
}

/** Exact cosine (+1, scores may not be negative) of the organization's chunks with these ids. */
export function cosineOfIdsBody(organizationId: string, ids: string[], vector: number[]): estypes.SearchRequest {
  return {
    query: {
      script_score: {
        query: { bool: { filter: [orgFilter(organizationId), { ids: { values: ids } }] } },
        script: { source: "cosineSimilarity(params.query_vector, 'embedding') + 1.0", params: { query_vector: vector } },
      },
    },
    size: ids.length,
    _source: false,
    track_total_hits: false,
  };
}

/** BM25 of the organization's chunks with these ids (a chunk that matches no term is not returned). */
export function bm25OfIdsBody(organizationId: string, ids: string[], terms: string[]): estypes.SearchRequest {
  return {
    query: matchAnyTerm(terms, [orgFilter(organizationId), { ids: { values: ids } }]),
    size: ids.length,
    _source: false,
    track_total_hits: false,
  };
}

/** Header of one search in an msearch: a missing index is an empty result, not an error. */
export const msearchHeader = (index: string): estypes.MsearchMultisearchHeader => ({
  index,
  ignore_unavailable: true,
  allow_no_indices: true,
});
