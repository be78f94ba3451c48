/**
 * Reading Elasticsearch responses: hits to stored chunks, scores to the port's 0-1 semantics, bulk item
 * errors and client errors to DomainError UPSTREAM_FAILED.
 */
import { errors } from '@elastic/elasticsearch';

import type { EmbeddingType, StoredChunk } from '../../core/ports/vector-index';
import { DomainError } from '../../core/shared/errors';

/**
 * Full-text relevance, built like the pgvector adapter's: 0.75 x the share of the query's terms found in
 * the chunk (from the named clauses in `matched_queries`) + 0.25 x the engine's rank saturated. Postgres
 * saturates ts_rank r as r / (r + 0.1) (0.1 is a good single-term ts_rank); BM25 s is on another scale, so
 * here s / (s + 3): a BM25 of 3, about one moderately rare term, counts half as well.
 */
export const BM25_HALF_SCORE = 3;
export const TERM_SHARE_WEIGHT = 0.75;

const clamp01 = (x: number) => (x <= 0 || !Number.isFinite(x) ? 0 : x >= 1 ? 1 : x);

/** kNN `_score` with `similarity: cosine` is (1 + cos) / 2; the port wants cos clamped at 0. */
export const vectorScoreFromKnn = (score: number) => clamp01(2 * score - 1);
/** The script_score of `cosineOfIdsBody` is cos + 1. */
export const vectorScoreFromScript = (score: number) => clamp01(score - 1);
/** BM25 (unbounded, > 0 when a term matched) saturated to 0-1. */
export const saturatedBm25 = (score: number) => (score > 0 ? clamp01(score / (score + BM25_HALF_SCORE)) : 0);

/** The text score of a hit of a `matchAnyTerm` query over `termCount` terms (0 when nothing matched). */
export function textScoreOf(hit: Pick<RawHit, '_score' | 'matched_queries'>, termCount: number): number {
  const names = Array.isArray(hit.matched_queries) ? hit.matched_queries : Object.keys(hit.matched_queries ?? {});
  const matched = new Set(names.filter((n) => /^t\d+$/.test(n))).size;
  if (termCount <= 0 || matched === 0) return 0;
  return clamp01(TERM_SHARE_WEIGHT * Math.min(1, matched / termCount) + (1 - TERM_SHARE_WEIGHT) * saturatedBm25(hit._score ?? 0));
}

export interface RawHit {
  _index: string;
  _id?: string;
  _score?: number | null;
  _source?: Record<string, unknown>;
  /** Names of the named clauses the hit matched (an object of scores with include_named_queries_score). */
  matched_queries?: string[] | Record<string, number>;
}

export interface ScoredHit {
  index: string;
  chunk: StoredChunk;
  score: number;
}

/** A hit as a stored chunk, or null when it is not the organization's (never returned whatever ES says). */
export function storedChunkOf(hit: RawHit, organizationId: string): StoredChunk | null {
  const s = hit._source ?? {};
  if (!hit._id || s.organization_id !== organizationId) return null;
  return {
    id: hit._id,
    organizationId,
    knowledgeBaseId: String(s.knowledge_base_id),
    documentId: String(s.document_id),
    chunkIndex: Number(s.chunk_index),
    content: typeof s.content === 'string' ? s.content : '',
    embeddingType: (s.embedding_type ?? 'text') as EmbeddingType,
    importance: typeof s.importance === 'number' ? s.importance : 0.5,
    metadata: s.metadata && typeof s.metadata === 'object' ? (s.metadata as Record<string, unknown>) : {},
  };
}

export interface MsearchItem {
  status?: number;
  error?: { type?: string; reason?: string };
  hits?: { hits: RawHit[] };
}

/** Hits of one msearch response; a missing index is an empty list, any other error fails the call. */
export function hitsOf(item: MsearchItem, operation: string): RawHit[] {
  if (item.error) {
    if (item.error.type === 'index_not_found_exception') return [];
    throw upstream(operation, `${item.error.type ?? 'error'}: ${item.error.reason ?? 'unknown reason'}`, {
      status: item.status,
      type: item.error.type,
    });
  }
  return item.hits?.hits ?? [];
}

export interface BulkItemResult {
  _id?: string | null;
  _index?: string;
  status: number;
  error?: { type?: string; reason?: string | null; caused_by?: { type?: string; reason?: string | null } };
}

/** Throws when any item of a bulk response failed (listing every failed chunk id). */
export function checkBulk(response: { errors: boolean; items: Partial<Record<string, BulkItemResult>>[] }): number {
  const failed = response.items
    .map((item) => Object.values(item)[0])
    .filter((r): r is BulkItemResult => !!r && (!!r.error || r.status >= 300));
  if (response.errors || failed.length > 0) {
    const first = failed[0];
    const reason = first?.error
      ? `${first.error.type ?? 'error'}: ${first.error.reason ?? ''}${first.error.caused_by ? ` (${first.error.caused_by.type}: ${first.error.caused_by.reason})` : ''}`
      : 'unknown item error';
    throw upstream('bulk', `${failed.length} of ${response.items.length} chunks failed, first ${first?._id ?? '?'}: ${reason}`, {
      failed: failed.map((f) => ({ id: f._id, status: f.status, type: f.error?.type, reason: f.error?.reason })),
    });
  }
  return response.items.length;
}

export function upstream(operation: string, reason: string, details?: Record<string, unknown>): DomainError {
  return new DomainError('UPSTREAM_FAILED', `Elasticsearch ${operation} failed: ${reason}`, { operation, ...details });
}

/** The `error.type` of an Elasticsearch error response, if any. */
export function errorType(e: unknown): string | undefined {
  if (e instanceof errors.ResponseError) return (e.meta.body as { error?: { type?: string } } | undefined)?.error?.type;
  return undefined;
}

/** Any client error as UPSTREAM_FAILED carrying the Elasticsearch reason. DomainErrors pass through. */
export function toDomainError(operation: string, e: unknown): DomainError {
  if (e instanceof DomainError) return e;
  if (e instanceof errors.ResponseError) {
    const body = e.meta.body as { error?: { type?: string; reason?: string; root_cause?: { reason?: string }[] } | string } | undefined;
    const err = body?.error;
    const type = typeof err === 'object' ? err.type : undefined;
    const reason = typeof err === 'object' ? (err.reason ?? err.root_cause?.[0]?.reason) : typeof err === 'string' ? err : e.message;
    return upstream(operation, `${type ? `${type}: ` : ''}${reason ?? `HTTP ${e.meta.statusCode}`}`, { status: e.meta.statusCode, type });
  }
  const name = e instanceof Error ? e.name : 'Error';
  return upstream(operation, `${name}: ${e instanceof Error ? e.message : String(e)}`);
}
