/**
 * Contract tests of the Elasticsearch vector index search: the msearch bodies (kNN + BM25 per knowledge
 * base, organization filter everywhere), the parsing of recorded responses and the score mapping.
 */
import { chunkId } from '../../core/knowledge/chunk-id';
import type { Candidate, HybridSearchQuery } from '../../core/ports/vector-index';
import { DomainError } from '../../core/shared/errors';
import { queryTerms } from './elasticsearch.requests';
import { saturatedBm25, textScoreOf, vectorScoreFromKnn, vectorScoreFromScript } from './elasticsearch.responses';
import { ElasticsearchVectorIndex } from './elasticsearch.vector-index';
import { fakeElasticsearch, loadContract, type RecordedRequest, replay, type ScriptedResponse } from './test-fixtures/fake-elasticsearch';

const NODE = 'http://es.test:9200';
const A = chunkId('doc-1', 0);
const B = chunkId('doc-1', 1);
const D = chunkId('doc-1', 2);
const C = chunkId('doc-2', 0);
const E = chunkId('doc-9', 0);

const QUERY: HybridSearchQuery = {
  organizationId: 'org-a',
  knowledgeBaseIds: ['kb-1', 'kb-2'],
  embedding: [0.5, 0.5, 0.5, 0.5],
  text: 'refund policy',
  candidatesPerKnowledgeBase: 2,
};

const scores = (list: Candidate[]) => list.map((c) => [c.chunk.id, c.vectorScore, c.textScore]);
const indexFor = (client: ReturnType<typeof fakeElasticsearch>['client']) =>
  new ElasticsearchVectorIndex({ node: NODE, indexPrefix: 'acme', client });
const msearchOk = (...responses: unknown[]): ScriptedResponse => ({ status: 200, body: { took: 2, responses } });
const hits = (...h: unknown[]) => ({
  took: 1,
  timed_out: false,
  _shards: { total: 1, successful: 1, skipped: 0, failed: 0 },
  hits: { hits: h },
  status: 200,
});

describe('score mapping', () => {
  it('kNN cosine _score (1 + cos) / 2 becomes cos clamped at 0', () => {
    expect(vectorScoreFromKnn(1)).toBe(1);
    expect(vectorScoreFromKnn(0.95)).toBeCloseTo(0.9, 10);
    expect(vectorScoreFromKnn(0.5)).toBe(0); // orthogonal
    expect(vectorScoreFromKnn(0.2)).toBe(0); // negative cosine counts as 0
  });

  it('script score cos + 1 becomes cos clamped at 0', () => {
    expect(vectorScoreFromScript(1.6)).toBeCloseTo(0.6, 10);
    expect(vectorScoreFromScript(0.7)).toBe(0);
    expect(vectorScoreFromScript(2)).toBe(1);
  });

  it('text score = 0.75 x share of the query terms matched + 0.25 x BM25 saturated as s / (s + 3)', () => {
    expect(saturatedBm25(0)).toBe(0);
    expect(saturatedBm25(3)).toBe(0.5);
    expect(saturatedBm25(40)).toBeLessThan(1);
    expect(textScoreOf({ _score: 3, matched_queries: ['t0', 't1'] }, 2)).toBeCloseTo(0.875, 10);
    expect(textScoreOf({ _score: 3, matched_queries: ['t1'] }, 4)).toBeCloseTo(0.1875 + 0.125, 10);
    expect(textScoreOf({ _score: 3, matched_queries: { t0: 1.2 } }, 1)).toBeCloseTo(0.875, 10); // include_named_queries_score form
    expect(textScoreOf({ _score: 3 }, 2)).toBe(0); // no term matched
  });

  it('query terms: lower-cased distinct words without English stop words (what the english analyzer keeps)', () => {
    expect(queryTerms("What is the Refund policy? The refund's window, in days: 30")).toEqual([
      'what',
      'refund',
      'policy',
      'window',
      'days',
      '30',
    ]);
    expect(queryTerms('the of and ...')).toEqual([]);
    expect(queryTerms(Array.from({ length: 100 }, (_, i) => `w${i}`).join(' '))).toHaveLength(64);
  });
});

describe('ElasticsearchVectorIndex search', () => {
  it('hybrid: kNN and BM25 per knowledge base in one msearch, then the missing scores by id; scores mapped to 0-1', async () => {
    const fake = replay('hybrid-search');
    const result = await indexFor(fake.client).search(QUERY);
    expect(fake.requests).toEqual(fake.expected);
    expect(fake.pending()).toBe(0);

    const close = (v: number | null) => (v === null ? null : Math.round(v * 1e6) / 1e6);
    const rounded = (list: Candidate[]) => scores(list).map(([id, v, t]) => [id, close(v as number | null), close(t as number | null)]);
    // kNN: A 0.95 -> 0.9, B 0.7 -> 0.4, C 0.45 -> cos -0.1 -> 0. Their text scores: A from the text list,
    // B not returned by the match on ids -> 0, C by id (1 of 2 terms, BM25 0.8) -> 0.375 + 0.25 * 0.8 / 3.8.
    expect(rounded(result.vector)).toEqual([
      [A, 0.9, close(0.375 + 0.25 * (2.1 / 5.1))],
      [B, 0.4, 0],
      [C, 0, close(0.375 + 0.25 * (0.8 / 3.8))],
    ]);
    // Text: D (both terms, BM25 4.2), E (both, 3.9), A (one term, 2.1); vector scores: A from the kNN list,
    // D and E by id (script 1.6 -> 0.6, 1.2 -> 0.2).
    expect(rounded(result.text)).toEqual([
      [D, 0.6, close(0.75 + 0.25 * (4.2 / 7.2))],
      [E, 0.2, close(0.75 + 0.25 * (3.9 / 6.9))],
      [A, 0.9, close(0.375 + 0.25 * (2.1 / 5.1))],
    ]);
    expect(result.text[0].chunk).toEqual({
      id: D,
      organizationId: 'org-a',
      knowledgeBaseId: 'kb-1',
      documentId: 'doc-1',
      chunkIndex: 2,
      content: 'Our refund policy does not cover gift cards.',
      embeddingType: 'text',
      importance: 0.5,
      metadata: { title: 'Refund policy', start: 92 },
    });
  });

  it('vector only (text null): one kNN per knowledge base, no BM25, no second request', async () => {
    const [first] = loadContract('hybrid-search').exchanges;
    const body = first.request.body as unknown[];
    const responses = (first.response.body as { responses: unknown[] }).responses;
    const fake = fakeElasticsearch([msearchOk(responses[0], responses[1])]);
    const result = await indexFor(fake.client).search({ ...QUERY, text: '  ' });
    expect(fake.requests).toEqual([{ ...first.request, body: body.slice(0, 4) }]);
    expect(scores(result.vector).map(([id, , t]) => [id, t])).toEqual([
      [A, null],
      [B, null],
      [C, null],
    ]);
    expect(result.text).toEqual([]);
  });

  it('text only (embedding null): one BM25 search per knowledge base over every chunk index, no second request', async () => {
    const [first] = loadContract('hybrid-search').exchanges;
    const body = (first.request.body as Record<string, unknown>[]).slice(4);
    const responses = (first.response.body as { responses: unknown[] }).responses;
    const fake = fakeElasticsearch([msearchOk(responses[2], responses[3])]);
    const result = await indexFor(fake.client).search({ ...QUERY, embedding: null });
    const anyIndex = body.map((line, i) => (i % 2 === 0 ? { ...line, index: 'acme-chunks-d*' } : line));
    expect(fake.requests).toEqual([{ ...first.request, body: anyIndex }]);
    expect(scores(result.text).map(([id, v]) => [id, v])).toEqual([
      [D, null],
      [E, null],
      [A, null],
    ]);
    expect(result.vector).toEqual([]);
  });

  it('a zero query vector searches text only; nothing to search sends no request', async () => {
    const fake = fakeElasticsearch([msearchOk(hits(), hits())]);
    const index = indexFor(fake.client);
    await index.search({ ...QUERY, embedding: [0, 0, 0, 0] });
    expect((fake.requests[0].body as { index: string }[]).filter((_, i) => i % 2 === 0).map((h) => h.index)).toEqual([
      'acme-chunks-d*',
      'acme-chunks-d*',
    ]);
    await expect(index.search({ ...QUERY, knowledgeBaseIds: [] })).resolves.toEqual({ vector: [], text: [] });
    await expect(index.search({ ...QUERY, embedding: null, text: null })).resolves.toEqual({ vector: [], text: [] });
    await expect(index.search({ ...QUERY, candidatesPerKnowledgeBase: 0 })).resolves.toEqual({ vector: [], text: [] });
    expect(fake.requests).toHaveLength(1);
  });

  it('deduplicates knowledge base ids and caps k at 1000 (num_candidates 10000, the Elasticsearch maximum)', async () => {
    const fake = fakeElasticsearch([msearchOk(hits())]);
    await indexFor(fake.client).search({ ...QUERY, knowledgeBaseIds: ['kb-1', 'kb-1'], text: null, candidatesPerKnowledgeBase: 50_000 });
    expect(fake.requests[0].body).toHaveLength(2);
    const [, knn] = fake.requests[0].body as { knn: { k: number; num_candidates: number }; size: number }[];
    expect([knn.knn.k, knn.knn.num_candidates, knn.size]).toEqual([1000, 10_000, 1000]);
  });

  it('a missing index is an empty list; another per-search error is UPSTREAM_FAILED with its reason', async () => {
    const notFound = {
      error: { root_cause: [], type: 'index_not_found_exception', reason: 'no such index [acme-chunks-d4]' },
      status: 404,
    };
    const fake = fakeElasticsearch([
      msearchOk(notFound, hits()),
      msearchOk(hits(), { error: { type: 'search_phase_execution_exception', reason: 'all shards failed' }, status: 400 }),
    ]);
    const index = indexFor(fake.client);
    await expect(index.search({ ...QUERY, knowledgeBaseIds: ['kb-1'], text: 'refund' })).resolves.toEqual({ vector: [], text: [] });
    let error: unknown;
    await index.search({ ...QUERY, knowledgeBaseIds: ['kb-1'], text: 'refund' }).catch((e) => (error = e));
    expect(error).toBeInstanceOf(DomainError);
    expect((error as DomainError).code).toBe('UPSTREAM_FAILED');
    expect((error as DomainError).message).toBe('Elasticsearch search failed: search_phase_execution_exception: all shards failed');
  });

  it('a failed msearch is UPSTREAM_FAILED with the Elasticsearch reason', async () => {
    const reason = '[knn] queries cannot be provided directly, use the [knn] body parameter instead';
    const fake = fakeElasticsearch([
      { status: 400, body: { error: { root_cause: [], type: 'x_content_parse_exception', reason }, status: 400 } },
    ]);
    await expect(indexFor(fake.client).search(QUERY)).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
      message: `Elasticsearch search failed: x_content_parse_exception: ${reason}`,
    });
  });
});

describe('organization isolation', () => {
  it('every read and delete filters on organization_id', async () => {
    const seen: RecordedRequest[] = [];
    const fake = fakeElasticsearch((req) => {
      seen.push(req);
      if (req.path.endsWith('_msearch')) return msearchOk(...(req.body as unknown[]).filter((_, i) => i % 2 === 1).map(() => hits()));
      if (req.path.endsWith('_count')) return { status: 200, body: { count: 0 } };
      if (req.path.endsWith('_bulk')) return { status: 200, body: { errors: false, items: [] } };
      if (req.method === 'PUT') return { status: 200, body: { acknowledged: true } };
      return { status: 200, body: { deleted: 0, failures: [] } };
    });
    const index = indexFor(fake.client);
    await index.search(QUERY);
    await index.search({ ...QUERY, embedding: null });
    await index.search({ ...QUERY, text: null });
    await index.countByDocument('org-a', 'doc-1');
    await index.deleteByDocument('org-a', 'doc-1');
    await index.deleteByKnowledgeBase('org-a', 'kb-1');
    await index.replaceDocument({ organizationId: 'org-a', knowledgeBaseId: 'kb-1', documentId: 'doc-1' }, []);
    // With hits, a hybrid search sends its second msearch (scores by id): it is checked too.
    const hybrid = replay('hybrid-search');
    await indexFor(hybrid.client).search(QUERY);
    seen.push(...hybrid.requests);

    const queries: unknown[] = [];
    for (const req of seen) {
      if (req.path.endsWith('_msearch')) queries.push(...(req.body as unknown[]).filter((_, i) => i % 2 === 1));
      else if (req.method === 'POST') queries.push(req.body);
    }
    expect(queries.length).toBe(18);
    for (const q of queries) {
      const filters = JSON.stringify(q).match(/\{"term":\{"organization_id":"[^"]*"\}\}/g) ?? [];
      expect(filters).toEqual(['{"term":{"organization_id":"org-a"}}']);
      expect(JSON.stringify(q)).toMatch(/"filter":\[\{"term":\{"organization_id":"org-a"\}\}/);
    }
  });

  it('drops a hit of another organization even if Elasticsearch returned one', async () => {
    const foreign = {
      _index: 'acme-chunks-d4',
      _id: 'x',
      _score: 0.99,
      _source: {
        organization_id: 'org-b',
        knowledge_base_id: 'kb-1',
        document_id: 'd',
        chunk_index: 0,
        content: 'secret',
        embedding_type: 'text',
        importance: 0.5,
        metadata: {},
      },
    };
    const fake = fakeElasticsearch([msearchOk(hits(foreign))]);
    const result = await indexFor(fake.client).search({ ...QUERY, knowledgeBaseIds: ['kb-1'], text: null });
    expect(result).toEqual({ vector: [], text: [] });
  });

  it('refuses a call without an organization before sending anything', async () => {
    const fake = fakeElasticsearch([]);
    const index = indexFor(fake.client);
    await expect(index.search({ ...QUERY, organizationId: '' })).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(index.deleteByKnowledgeBase('', 'kb-1')).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(fake.requests).toEqual([]);
  });
});
