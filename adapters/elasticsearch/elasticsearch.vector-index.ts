/**
 * VectorIndex on Elasticsearch 9: one index per embedding size (`<prefix>-chunks-d<dims>`, created on first
 * write with an explicit mapping), dense_vector (cosine, int8_hnsw) for kNN and `content` (english analyzer,
 * BM25) for full text. The chunk id is the document `_id`.
 *
 * Consistency: `upsert` and `replaceDocument` resolve once the written chunks are searchable (bulk with
 * refresh=wait_for); deletes run with refresh=true, so a deleted chunk is gone from the next search and count.
 *
 * Search: one msearch with, per knowledge base, a kNN search (k = num hits = candidatesPerKnowledgeBase,
 * filtered on organization_id + knowledge_base_id) and a BM25 search (one named `match` per query term, same
 * filters), so each knowledge base gets its own candidate limit in each list. In a hybrid search a second
 * msearch fills the other score of each candidate (exact cosine of text-only hits by script_score on their
 * ids, text score of vector-only hits by the same match restricted to their ids), so both lists carry
 * vectorScore and textScore as in the pgvector adapter. Scores: see elasticsearch.responses.ts.
 *
 * Not tested against a live cluster here (Elasticsearch cannot run on the development machines): the
 * requests and the parsing are pinned by contract tests; docker-compose runs the real thing. */
import { Client, type estypes } from '@elastic/elasticsearch';

import type { Candidate, HybridCandidates, HybridSearchQuery, StoredChunk, VectorChunk, VectorIndex } from '../../core/ports/vector-index';
import { DomainError } from '../../core/shared/errors';
import {
  DEFAULT_INDEX_PREFIX,
  type ElasticsearchVectorIndexOptions,
  validateElasticsearchVectorIndexOptions,
} from './elasticsearch.options';
import {
  allIndicesPattern,
  bm25OfIdsBody,
  chunkDocument,
  chunkIndexMappings,
  cosineOfIdsBody,
  documentQuery,
  indexName,
  knnSearchBody,
  knowledgeBaseQuery,
  MAX_DIMS,
  MAX_K,
  msearchHeader,
  queryTerms,
  staleChunksQuery,
  textSearchBody,
} from './elasticsearch.requests';
import {
  checkBulk,
  errorType,
  hitsOf,
  type MsearchItem,
  type RawHit,
  storedChunkOf,
  textScoreOf,
  toDomainError,
  upstream,
  vectorScoreFromKnn,
  vectorScoreFromScript,
} from './elasticsearch.responses';

export { type ElasticsearchVectorIndexOptions, elasticsearchVectorIndexOptionsSchema } from './elasticsearch.options';

/** A bulk request stays under these (Elasticsearch refuses bodies over http.max_content_length, 100 MB). */
export const MAX_BULK_BYTES = 8 * 1024 * 1024;
export const MAX_BULK_CHUNKS = 1000;
const MAX_RESULT_WINDOW = 10_000;

type SearchEntry = estypes.MsearchMultisearchHeader | estypes.SearchRequest;
interface Found extends Candidate {
  index: string;
}

export class ElasticsearchVectorIndex implements VectorIndex {
  readonly id = 'elasticsearch';
  private readonly client: Client;
  private readonly ownsClient: boolean;
  private readonly prefix: string;
  /** Index creation per dimensions, once per process (a failed attempt is retried on the next write). */
  private readonly ready = new Map<number, Promise<void>>();
  private closed = false;

  constructor(options: ElasticsearchVectorIndexOptions) {
    const { client, ...config } = options ?? ({} as ElasticsearchVectorIndexOptions);
    const valid = validateElasticsearchVectorIndexOptions(config);
    this.prefix = valid.indexPrefix ?? DEFAULT_INDEX_PREFIX;
    this.client = client ?? new Client({ node: valid.node });
    this.ownsClient = !client;
  }

  async upsert(chunks: VectorChunk[]): Promise<void> {
    await this.write(chunks);
  }

  async replaceDocument(
    ref: { organizationId: string; knowledgeBaseId: string; documentId: string },
    chunks: VectorChunk[],
  ): Promise<{ deleted: number; written: number }> {
    requireId('organizationId', ref.organizationId);
    requireId('documentId', ref.documentId);
    for (const c of chunks) {
      if (c.organizationId !== ref.organizationId || c.knowledgeBaseId !== ref.knowledgeBaseId || c.documentId !== ref.documentId) {
        throw new DomainError(
          'VALIDATION',
          `chunk ${c.id} does not belong to document ${ref.documentId} of knowledge base ${ref.knowledgeBaseId}`,
        );
      }
    }
    // Write first, then drop what is not in the new set: a crash in between leaves extra chunks, never
    // missing ones, and the next run converges.
    const keep = await this.write(chunks);
    const deleted = await this.deleteWhere('replaceDocument', staleChunksQuery(ref, keep));
    return { deleted, written: chunks.length };
  }

  async deleteByDocument(organizationId: string, documentId: string): Promise<number> {
    requireId('organizationId', organizationId);
    return this.deleteWhere('deleteByDocument', documentQuery(organizationId, documentId));
  }

  async deleteByKnowledgeBase(organizationId: string, knowledgeBaseId: string): Promise<number> {
    requireId('organizationId', organizationId);
    return this.deleteWhere('deleteByKnowledgeBase', knowledgeBaseQuery(organizationId, knowledgeBaseId));
  }

  async countByDocument(organizationId: string, documentId: string): Promise<number> {
    requireId('organizationId', organizationId);
    try {
      const r = await this.client.count({
        index: allIndicesPattern(this.prefix),
        query: documentQuery(organizationId, documentId),
        allow_no_indices: true,
        ignore_unavailable: true,
      });
      return r.count;
    } catch (e) {
      if (errorType(e) === 'index_not_found_exception') return 0;
      throw toDomainError('count', e);
    }
  }

  async search(query: HybridSearchQuery): Promise<HybridCandidates> {
    const org = query.organizationId;
    requireId('organizationId', org);
    const kbs = [...new Set(query.knowledgeBaseIds)];
    const k = Math.min(MAX_K, Math.floor(query.candidatesPerKnowledgeBase));
    const terms = queryTerms(query.text ?? '');
    const vector = query.embedding && query.embedding.length > 0 ? query.embedding : null;
    if (vector) checkVector('query embedding', vector, false);
    const useVector = vector !== null && magnitude(vector) > 0; // a zero vector has no cosine: nothing is near it
    if (kbs.length === 0 || !(k >= 1) || (!useVector && terms.length === 0)) return { vector: [], text: [] };

    // With a query vector both lists come from the index of its dimensions (as pgvector's single space),
    // so every candidate's vector score is comparable; text only searches every chunk index.
    const target = useVector ? indexName(this.prefix, vector!.length) : allIndicesPattern(this.prefix);
    const searches: SearchEntry[] = [];
    if (useVector) for (const kb of kbs) searches.push(msearchHeader(target), knnSearchBody(org, kb, vector!, k));
    if (terms.length > 0) for (const kb of kbs) searches.push(msearchHeader(target), textSearchBody(org, kb, terms, k));
    const lists = await this.msearch('search', searches);
    const vectorHits = useVector ? lists.slice(0, kbs.length).flat() : [];
    const textHits = lists.slice(useVector ? kbs.length : 0).flat();

    const vectorFound = best(vectorHits, org, (h) => ({ vectorScore: vectorScoreFromKnn(h._score ?? 0), textScore: null }), 'vectorScore');
    const textFound = best(textHits, org, (h) => ({ vectorScore: null, textScore: textScoreOf(h, terms.length) }), 'textScore');
    if (useVector && terms.length > 0) await this.crossScore(org, vector!, terms, target, vectorFound, textFound);
    return { vector: vectorFound.map(toCandidate), text: textFound.map(toCandidate) };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.ownsClient) await this.client.close();
  }

  /** Fills the missing score of each candidate: from the other list when it is there, else by id lookups. */
  private async crossScore(org: string, vector: number[], terms: string[], index: string, vectorFound: Found[], textFound: Found[]) {
    const inVector = new Map(vectorFound.map((f) => [f.chunk.id, f]));
    const inText = new Map(textFound.map((f) => [f.chunk.id, f]));
    for (const t of textFound) t.vectorScore = inVector.get(t.chunk.id)?.vectorScore ?? null;
    for (const v of vectorFound) v.textScore = inText.get(v.chunk.id)?.textScore ?? null;
    // One search returns at most 10000 hits (index.max_result_window); beyond that a score stays unknown.
    const needCosine = textFound
      .filter((t) => t.vectorScore === null)
      .map((t) => t.chunk.id)
      .slice(0, MAX_RESULT_WINDOW);
    const needText = vectorFound
      .filter((v) => v.textScore === null)
      .map((v) => v.chunk.id)
      .slice(0, MAX_RESULT_WINDOW);
    if (needCosine.length === 0 && needText.length === 0) return;

    const searches: SearchEntry[] = [];
    if (needCosine.length > 0) searches.push(msearchHeader(index), cosineOfIdsBody(org, needCosine, vector));
    if (needText.length > 0) searches.push(msearchHeader(index), bm25OfIdsBody(org, needText, terms));
    const lists = await this.msearch('search (scores by id)', searches);
    const byId = (hits: RawHit[], score: (h: RawHit) => number) => new Map(hits.filter((h) => h._id).map((h) => [h._id!, score(h)]));
    if (needCosine.length > 0) {
      const cos = byId(lists[0], (h) => vectorScoreFromScript(h._score ?? 0));
      for (const t of textFound) if (t.vectorScore === null) t.vectorScore = cos.get(t.chunk.id) ?? null;
    }
    if (needText.length > 0) {
      // A vector hit the match does not return matched no query term: its text score is 0.
      const text = byId(lists[needCosine.length > 0 ? 1 : 0], (h) => textScoreOf(h, terms.length));
      const asked = new Set(needText);
      for (const v of vectorFound) if (v.textScore === null && asked.has(v.chunk.id)) v.textScore = text.get(v.chunk.id) ?? 0;
    }
  }

  /** Ensures the indices and bulk-writes the chunks; returns the ids written per index. */
  private async write(chunks: VectorChunk[]): Promise<{ index: string; ids: string[] }[]> {
    if (chunks.length === 0) return [];
    for (const c of chunks) {
      requireId('organizationId', c.organizationId);
      requireId('chunk id', c.id);
      checkVector(`chunk ${c.id} embedding`, c.embedding, true);
    }
    const byIndex = new Map<number, VectorChunk[]>();
    for (const c of chunks) {
      const group = byIndex.get(c.embedding.length);
      if (group) group.push(c);
      else byIndex.set(c.embedding.length, [c]);
    }
    await Promise.all([...byIndex.keys()].map((dims) => this.ensureIndex(dims)));

    let operations: unknown[] = [];
    let bytes = 0;
    for (const [dims, group] of byIndex) {
      const index = indexName(this.prefix, dims);
      for (const c of group) {
        const doc = chunkDocument(c);
        const size = JSON.stringify(doc).length + index.length + c.id.length + 40;
        if (operations.length > 0 && (bytes + size > MAX_BULK_BYTES || operations.length / 2 >= MAX_BULK_CHUNKS)) {
          await this.bulk(operations);
          operations = [];
          bytes = 0;
        }
        operations.push({ index: { _index: index, _id: c.id } }, doc);
        bytes += size;
      }
    }
    await this.bulk(operations);
    return [...byIndex].map(([dims, group]) => ({ index: indexName(this.prefix, dims), ids: group.map((c) => c.id) }));
  }

  private async bulk(operations: unknown[]): Promise<void> {
    let response: estypes.BulkResponse;
    try {
      response = await this.client.bulk({ operations: operations as estypes.BulkRequest['operations'], refresh: 'wait_for' });
    } catch (e) {
      throw toDomainError('bulk', e);
    }
    checkBulk(response);
  }

  private ensureIndex(dims: number): Promise<void> {
    let p = this.ready.get(dims);
    if (!p) {
      p = this.createIndex(dims).catch((e) => {
        this.ready.delete(dims);
        throw e;
      });
      this.ready.set(dims, p);
    }
    return p;
  }

  private async createIndex(dims: number): Promise<void> {
    const index = indexName(this.prefix, dims);
    try {
      await this.client.indices.create({ index, mappings: chunkIndexMappings(dims) });
    } catch (e) {
      if (errorType(e) === 'resource_already_exists_exception') return; // another process (or an earlier run) made it
      throw toDomainError(`create index ${index}`, e);
    }
  }

  private async deleteWhere(operation: string, query: estypes.QueryDslQueryContainer): Promise<number> {
    try {
      const r = await this.client.deleteByQuery({
        index: allIndicesPattern(this.prefix),
        query,
        conflicts: 'proceed',
        refresh: true,
        allow_no_indices: true,
        ignore_unavailable: true,
      });
      if (r.failures && r.failures.length > 0) {
        const f = r.failures[0] as { cause?: { type?: string; reason?: string } };
        throw upstream(operation, `${r.failures.length} failures, first ${f.cause?.type ?? 'error'}: ${f.cause?.reason ?? ''}`, {
          deleted: r.deleted ?? 0,
        });
      }
      return r.deleted ?? 0;
    } catch (e) {
      if (errorType(e) === 'index_not_found_exception') return 0;
      throw toDomainError(operation, e);
    }
  }

  private async msearch(operation: string, searches: SearchEntry[]): Promise<RawHit[][]> {
    let response: estypes.MsearchResponse;
    try {
      response = await this.client.msearch({ searches });
    } catch (e) {
      if (errorType(e) === 'index_not_found_exception') return searches.filter((_, i) => i % 2 === 1).map(() => []);
      throw toDomainError(operation, e);
    }
    if (response.responses.length !== searches.length / 2) {
      throw upstream(operation, `${response.responses.length} responses to ${searches.length / 2} searches`);
    }
    return response.responses.map((item) => hitsOf(item as MsearchItem, operation));
  }
}

/** Hits to candidates of the organization, one per chunk id (its best score), best first. */
function best(
  hits: RawHit[],
  org: string,
  score: (h: RawHit) => Pick<Candidate, 'vectorScore' | 'textScore'>,
  key: 'vectorScore' | 'textScore',
): Found[] {
  const byId = new Map<string, Found>();
  for (const h of hits) {
    const chunk = storedChunkOf(h, org);
    if (!chunk) continue;
    const found: Found = { index: h._index, chunk, ...score(h) };
    const prev = byId.get(chunk.id);
    if (!prev || (found[key] ?? 0) > (prev[key] ?? 0)) byId.set(chunk.id, found);
  }
  return [...byId.values()].sort(
    (a, b) => (b[key] ?? 0) - (a[key] ?? 0) || (a.chunk.id < b.chunk.id ? -1 : a.chunk.id > b.chunk.id ? 1 : 0),
  );
}

const toCandidate = (f: Found): Candidate => ({ chunk: f.chunk as StoredChunk, vectorScore: f.vectorScore, textScore: f.textScore });

const magnitude = (v: number[]) => Math.sqrt(v.reduce((s, x) => s + x * x, 0));

function checkVector(what: string, v: number[], stored: boolean): void {
  if (!Array.isArray(v) || v.length === 0 || v.length > MAX_DIMS) {
    throw new DomainError('VALIDATION', `${what} must have 1 to ${MAX_DIMS} dimensions`);
  }
  if (!v.every((x) => typeof x === 'number' && Number.isFinite(x))) throw new DomainError('VALIDATION', `${what} must hold finite numbers`);
  if (stored && magnitude(v) === 0) throw new DomainError('VALIDATION', `${what} is a zero vector (cosine similarity is undefined)`);
}

function requireId(what: string, value: string): void {
  if (typeof value !== 'string' || value.length === 0) throw new DomainError('VALIDATION', `${what} is required`);
}
