import type { Embedder } from '../ports/embedder';
import type { Reranker } from '../ports/reranker';
import type { Store } from '../ports/store';
import type { Candidate, HybridCandidates, HybridSearchQuery, StoredChunk, VectorIndex } from '../ports/vector-index';
import type { KnowledgeBase } from './knowledge-base';
import { tablePricing } from './pricing';
import { DEFAULT_RANKING } from './ranking';
import { chargeRetrieval, retrieve } from './retrieve';

// a provider model: these tests check the spec's ranking; the offline profile is tested in ranking.test.ts
const kb = (id: string, model = 'openai/text-embedding-3-small', dimensions = 16): KnowledgeBase => ({
  id,
  organizationId: 'org',
  name: id,
  description: '',
  visibility: 'private',
  settings: { embedding: { model, dimensions }, chunking: { size: 1000, overlap: 200 } },
  createdBy: null,
  createdAt: '',
  updatedAt: '',
});

let seq = 0;
const chunk = (kbId: string, docId: string, content = `chunk ${++seq} about things`): StoredChunk => ({
  id: `id-${++seq}`,
  organizationId: 'org',
  knowledgeBaseId: kbId,
  documentId: docId,
  chunkIndex: seq,
  content: `${content} ${seq}`,
  embeddingType: 'text',
  importance: 0.5,
  metadata: { documentTitle: docId },
});

class FakeIndex implements VectorIndex {
  readonly id = 'fake';
  queries: HybridSearchQuery[] = [];
  constructor(private readonly answer: (q: HybridSearchQuery) => HybridCandidates) {}
  async search(q: HybridSearchQuery) {
    this.queries.push(q);
    return this.answer(q);
  }
  upsert = async () => undefined;
  replaceDocument = async () => ({ deleted: 0, written: 0 });
  deleteByDocument = async () => 0;
  deleteByKnowledgeBase = async () => 0;
  countByDocument = async () => 0;
  close = async () => undefined;
}

function embedder(
  model = 'openai/text-embedding-3-small',
): Embedder & { calls: { texts: string[]; dimensions: number; purpose: string }[] } {
  const calls: { texts: string[]; dimensions: number; purpose: string }[] = [];
  return {
    id: 'fake',
    model,
    calls,
    async embed(texts, options) {
      calls.push({ texts, ...options });
      return {
        vectors: texts.map(() => new Array(options.dimensions).fill(1 / Math.sqrt(options.dimensions))),
        model,
        usage: { tokens: 7 },
      };
    },
  };
}

const store = (kbs: KnowledgeBase[]) =>
  ({
    repos: { knowledgeBases: { findMany: async (_org: string, ids: string[]) => kbs.filter((k) => ids.includes(k.id)) } },
  }) as unknown as Store;
const c = (chunk: StoredChunk, vectorScore: number | null, textScore: number | null): Candidate => ({ chunk, vectorScore, textScore });

describe('retrieve', () => {
  it('embeds the query per embedding size, asks for candidates per knowledge base, and returns ranked chunks', async () => {
    const a = chunk('kb-a', 'doc-1');
    const b = chunk('kb-b', 'doc-2');
    const index = new FakeIndex((q) =>
      q.embedding?.length === 16 ? { vector: [c(a, 0.9, 0.2)], text: [c(a, 0.9, 0.2)] } : { vector: [c(b, 0.5, null)], text: [] },
    );
    const e = embedder();
    const r = await retrieve(
      { store: store([kb('kb-a'), kb('kb-b', 'openai/text-embedding-3-small', 32)]), vectorIndex: index, embedder: e, reranker: null },
      // the spec's weights (the offline embedder's own profile is pinned in ranking.test.ts)
      { organizationId: 'org', knowledgeBaseIds: ['kb-a', 'kb-b', 'kb-a'], query: ' how? ', options: { weights: DEFAULT_RANKING.weights } },
    );
    expect(e.calls.map((x) => [x.dimensions, x.purpose, x.texts])).toEqual([
      [16, 'query', ['how?']],
      [32, 'query', ['how?']],
    ]);
    expect(index.queries.map((q) => [q.knowledgeBaseIds, q.text, q.candidatesPerKnowledgeBase, q.organizationId])).toEqual([
      [['kb-a'], 'how?', 20, 'org'],
      [['kb-b'], 'how?', 20, 'org'],
    ]);
    expect(r.chunks.map((x) => [x.chunkId, x.matchedBy])).toEqual([
      [a.id, ['vector', 'text']],
      [b.id, ['vector']],
    ]);
    expect(r.chunks[0].score).toBeCloseTo(0.6 * 0.9 + 0.25 * 0.2 + 0.075, 4);
    expect(r.usage).toEqual({
      embeddingModel: 'openai/text-embedding-3-small',
      embeddingTokens: 14,
      rerankModel: null,
      rerankSearchUnits: 0,
    });
  });

  it('searches knowledge bases of another embedding model by text only, and ignores unknown ids', async () => {
    const t = chunk('kb-old', 'doc-9', 'exact words');
    const index = new FakeIndex(() => ({ vector: [], text: [c(t, null, 1)] }));
    const e = embedder();
    const r = await retrieve(
      { store: store([kb('kb-old', 'openai/text-embedding-3-large', 3072)]), vectorIndex: index, embedder: e, reranker: null },
      { organizationId: 'org', knowledgeBaseIds: ['kb-old', 'missing'], query: 'exact words' },
    );
    expect(e.calls).toEqual([]);
    expect(index.queries).toEqual([expect.objectContaining({ knowledgeBaseIds: ['kb-old'], embedding: null, text: 'exact words' })]);
    expect(r.chunks.map((x) => x.chunkId)).toEqual([t.id]);
  });

  it('uses the knowledge bases the caller already read, only those asked for and of the organization', async () => {
    const a = chunk('kb-a', 'doc-1');
    const index = new FakeIndex(() => ({ vector: [c(a, 0.9, 0.5)], text: [] }));
    const unread = { repos: { knowledgeBases: { findMany: async () => Promise.reject(new Error('read again')) } } } as unknown as Store;
    const foreign = { ...kb('kb-x'), organizationId: 'other' };
    const r = await retrieve(
      { store: unread, vectorIndex: index, embedder: embedder(), reranker: null },
      { organizationId: 'org', knowledgeBaseIds: ['kb-a', 'kb-x'], query: 'things', knowledgeBases: [kb('kb-a'), kb('kb-b'), foreign] },
    );
    expect(index.queries.map((q) => q.knowledgeBaseIds)).toEqual([['kb-a']]);
    expect(r.chunks.map((x) => x.chunkId)).toEqual([a.id]);
  });

  it('returns nothing for an empty query or no readable knowledge base, without calling anything', async () => {
    const index = new FakeIndex(() => ({ vector: [], text: [] }));
    const e = embedder();
    const deps = { store: store([kb('kb-a')]), vectorIndex: index, embedder: e, reranker: null };
    expect((await retrieve(deps, { organizationId: 'org', knowledgeBaseIds: ['kb-a'], query: '  ' })).chunks).toEqual([]);
    expect((await retrieve(deps, { organizationId: 'org', knowledgeBaseIds: ['nope'], query: 'x' })).chunks).toEqual([]);
    expect(e.calls).toEqual([]);
    expect(index.queries).toEqual([]);
  });

  it('reranks the fused pool when a reranker is configured (unless turned off)', async () => {
    const first = chunk('kb-a', 'd1');
    const second = chunk('kb-a', 'd2');
    const index = new FakeIndex(() => ({
      vector: [c(first, 0.6, 0.9), c(second, 0.6, 0.1)],
      text: [c(first, 0.6, 0.9), c(second, 0.6, 0.1)],
    }));
    const seen: string[][] = [];
    const reranker: Reranker = {
      id: 'r',
      model: 'cohere/rerank-v3.5',
      rerank: async (_q, docs) => (
        seen.push(docs),
        {
          results: [
            { index: 1, score: 0.99 },
            { index: 0, score: 0.01 },
          ],
          usage: { searchUnits: 1 },
        }
      ),
    };
    const deps = { store: store([kb('kb-a')]), vectorIndex: index, embedder: embedder(), reranker };
    const r = await retrieve(deps, { organizationId: 'org', knowledgeBaseIds: ['kb-a'], query: 'q' });
    expect(r.chunks.map((x) => x.chunkId)).toEqual([second.id, first.id]);
    expect(r.chunks[0].rerankScore).toBe(0.99);
    expect(seen[0]).toHaveLength(2);
    expect(r.usage).toMatchObject({ rerankModel: 'cohere/rerank-v3.5', rerankSearchUnits: 1 });
    const plain = await retrieve(deps, { organizationId: 'org', knowledgeBaseIds: ['kb-a'], query: 'q', options: { rerank: false } });
    expect(plain.chunks.map((x) => x.chunkId)).toEqual([first.id, second.id]);
  });

  it('applies caller options: topK per knowledge base, candidates, vector or text mode', async () => {
    const many = Array.from({ length: 6 }, (_, i) => chunk('kb-a', `doc-${i}`));
    const index = new FakeIndex(() => ({ vector: many.map((m, i) => c(m, 0.9 - i / 100, null)), text: [] }));
    const deps = { store: store([kb('kb-a')]), vectorIndex: index, embedder: embedder(), reranker: null };
    expect((await retrieve(deps, { organizationId: 'org', knowledgeBaseIds: ['kb-a'], query: 'q' })).chunks).toHaveLength(3);
    const r = await retrieve(deps, {
      organizationId: 'org',
      knowledgeBaseIds: ['kb-a'],
      query: 'q',
      options: { topKPerKnowledgeBase: 5, candidatesPerKnowledgeBase: 7, mode: 'vector' },
    });
    expect(r.chunks).toHaveLength(5);
    expect(index.queries.at(-1)).toMatchObject({ candidatesPerKnowledgeBase: 7, text: null });
    await retrieve(deps, { organizationId: 'org', knowledgeBaseIds: ['kb-a'], query: 'q', options: { mode: 'text' } });
    expect(index.queries.at(-1)).toMatchObject({ embedding: null, text: 'q' });
  });
});

describe('chargeRetrieval', () => {
  const pricing = tablePricing(new Map([['openai/text-embedding-3-large', 0.13 / 1e6]]));
  it('records nothing for free models and a priced event for paid ones', async () => {
    const charged: unknown[] = [];
    const billing = {
      store: {
        transaction: async (fn: (r: unknown) => unknown) =>
          fn({ wallets: { adjust: async () => 0 }, billingEvents: { record: async (e: unknown) => charged.push(e) } }),
      },
      clock: { now: () => new Date('2024-01-01T00:00:00Z') },
      ids: { uuid: () => 'id', secret: () => 's' },
      marginMultiplier: 2,
    } as never;
    expect(
      await chargeRetrieval(
        { billing, pricing },
        'org',
        { embeddingModel: 'local/hash-embed-v1', embeddingTokens: 100, rerankModel: 'local/lexical-rerank-v1', rerankSearchUnits: 1 },
        {},
      ),
    ).toBeNull();
    const event = await chargeRetrieval(
      { billing, pricing },
      'org',
      {
        embeddingModel: 'openai/text-embedding-3-large',
        embeddingTokens: 1_000_000,
        rerankModel: 'cohere/rerank-v3.5',
        rerankSearchUnits: 2,
      },
      { knowledgeBaseIds: ['kb'] },
    );
    expect(event).toMatchObject({
      kind: 'knowledge_search',
      model: 'openai/text-embedding-3-large',
      promptTokens: 1_000_000,
      providerCostUsd: 0.134,
      costUsd: 0.268,
    });
    expect(charged).toHaveLength(1);
  });
});
