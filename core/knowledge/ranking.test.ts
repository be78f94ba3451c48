import type { Candidate, StoredChunk } from '../ports/vector-index';
import {
  applyTokenBudget,
  capPerGroup,
  combinedScore,
  DEFAULT_RANKING,
  dropNearDuplicates,
  fuse,
  jaccard,
  OFFLINE_EMBEDDER_WEIGHTS,
  type RankingOptions,
  rankingProfileFor,
  scoreCandidates,
  selectResults,
  shingles,
  weightsFor,
} from './ranking';

let n = 0;
function stored(over: Partial<StoredChunk> = {}): StoredChunk {
  n++;
  return {
    id: `c${String(n).padStart(3, '0')}`,
    organizationId: 'o',
    knowledgeBaseId: 'kb1',
    documentId: `d${n}`,
    chunkIndex: 0,
    content: `unique content number ${n} ${'x'.repeat(n)}`,
    embeddingType: 'text',
    importance: 0.5,
    metadata: {},
    ...over,
  };
}
const cand = (chunk: StoredChunk, vectorScore: number | null, textScore: number | null): Candidate => ({ chunk, vectorScore, textScore });
const o = DEFAULT_RANKING;

describe('reciprocal rank fusion', () => {
  it('sums 1/(k + rank) over both lists, so a hit of both lists ranks first', () => {
    const a = stored();
    const b = stored();
    const c = stored();
    const fused = fuse([cand(a, 0.9, null), cand(b, 0.8, null)], [cand(c, null, 0.9), cand(b, 0.8, 0.5)], 60);
    expect(fused.map((f) => f.chunk.id)).toEqual([b.id, a.id, c.id]);
    expect(fused[0].rrf).toBeCloseTo(1 / 62 + 1 / 62, 10);
    expect(fused[1].rrf).toBeCloseTo(1 / 61, 10);
    expect(fused[0]).toMatchObject({ vectorScore: 0.8, textScore: 0.5, vectorMatch: true, textMatch: true });
    expect(fused[2]).toMatchObject({ vectorScore: null, textScore: 0.9, vectorMatch: false, textMatch: true });
  });
});

describe('combined score and floors', () => {
  it('weighs 0.60 vector similarity, 0.25 text relevance, 0.15 importance', () => {
    expect(combinedScore({ vectorScore: 0.8, chunk: { importance: 0.4 } }, 0.6, o.weights)).toBeCloseTo(
      0.6 * 0.8 + 0.25 * 0.6 + 0.15 * 0.4,
      10,
    );
    expect(combinedScore({ vectorScore: null, chunk: { importance: 2 } }, -1, o.weights)).toBeCloseTo(0.15, 10); // clamped
  });

  const score = (vectorScore: number | null, textScore: number | null, importance = 0.5, textMatch = textScore !== null) =>
    scoreCandidates(
      [{ chunk: stored({ importance }), vectorScore, textScore, textMatch, vectorMatch: vectorScore !== null, rrf: 0.01 }],
      null,
      o,
    );

  it('drops a vector-only hit below 0.35 similarity, keeps it at 0.35 when the combined score clears 0.25', () => {
    expect(score(0.349, null)).toEqual([]);
    const [kept] = score(0.35, null);
    expect(kept.score).toBeCloseTo(0.21 + 0.075, 10);
  });

  it('drops anything whose combined score is below 0.25', () => {
    expect(score(0.35, null, 0)).toEqual([]); // 0.21
    expect(score(0.4, null, 0.05)).toEqual([]); // 0.24 + 0.0075
    expect(score(0.4, null, 0.2)).toHaveLength(1); // 0.27
  });

  it('keeps text-only hits (no vector score) only when their combined score clears the bar', () => {
    expect(score(null, 1.0)).toHaveLength(1); // 0.25 + 0.075
    expect(score(null, 0.69)).toEqual([]); // 0.1725 + 0.075 = 0.2475
    expect(score(null, 0.7)).toHaveLength(1); // 0.25
  });

  it('exempts full-text matches from the vector floor: a lexical hit with low similarity stays', () => {
    expect(score(0.2, 0.8)).toHaveLength(1); // 0.12 + 0.2 + 0.075
    expect(score(0.2, 0.8, 0.5, false)).toEqual([]); // same numbers, but the text search did not find it
  });

  it('uses rerank scores instead of the full-text score when a reranker ran', () => {
    const pool = [
      { chunk: stored(), vectorScore: 0.5, textScore: 0.9, textMatch: true, vectorMatch: true, rrf: 0.02 },
      { chunk: stored(), vectorScore: 0.5, textScore: 0.1, textMatch: true, vectorMatch: true, rrf: 0.01 },
    ];
    const without = scoreCandidates(pool, null, o);
    expect(without[0].chunk.id).toBe(pool[0].chunk.id);
    const reranked = scoreCandidates(pool, [0.05, 0.95], o);
    expect(reranked.map((r) => r.chunk.id)).toEqual([pool[1].chunk.id, pool[0].chunk.id]);
    expect(reranked[0]).toMatchObject({ rerankScore: 0.95, relevance: 0.95 });
    expect(reranked[0].score).toBeCloseTo(0.3 + 0.25 * 0.95 + 0.075, 10);
  });
});

describe('selection', () => {
  const ranked = (chunks: StoredChunk[]) => chunks.map((chunk, i) => ({ chunk, score: 1 - i / 100 }));

  it('removes near-duplicates (word 3-gram Jaccard >= 0.9), keeping the better hit', () => {
    const text = Array.from({ length: 60 }, (_, i) => `word${i}`).join(' ');
    const a = stored({ content: text });
    const b = stored({ content: `${text} extra` }); // 58/59 shared shingles
    const c = stored({ content: Array.from({ length: 60 }, (_, i) => `other${i}`).join(' ') });
    expect(jaccard(shingles(a.content), shingles(b.content))).toBeGreaterThanOrEqual(0.9);
    expect(dropNearDuplicates(ranked([a, b, c]), 0.9).map((r) => r.chunk.id)).toEqual([a.id, c.id]);
    expect(dropNearDuplicates(ranked([a, c]), 0.9)).toHaveLength(2);
  });

  it('keeps at most 2 chunks per document and topK per knowledge base, in score order', () => {
    const d = [
      stored({ documentId: 'doc-a' }),
      stored({ documentId: 'doc-a' }),
      stored({ documentId: 'doc-a' }),
      stored({ documentId: 'doc-b' }),
      stored({ documentId: 'doc-c' }),
      stored({ knowledgeBaseId: 'kb2', documentId: 'doc-z' }),
    ];
    expect(capPerGroup(ranked(d), 2, 3).map((r) => r.chunk.id)).toEqual([d[0].id, d[1].id, d[3].id, d[5].id]);
  });

  it('fills a token budget in score order, skipping chunks that no longer fit', () => {
    const long = stored({ content: 'word '.repeat(100) }); // 100 tokens
    const small = stored({ content: 'word '.repeat(10) });
    const big = stored({ content: 'word '.repeat(200) });
    expect(applyTokenBudget(ranked([long, big, small]), 150).map((r) => r.chunk.id)).toEqual([long.id, small.id]);
    expect(applyTokenBudget(ranked([big]), null)).toHaveLength(1);
  });

  it('selectResults applies duplicates, caps and budget together', () => {
    const base = { vectorScore: 0.9, textScore: 0.5, textMatch: true, vectorMatch: true, rrf: 0.01, rerankScore: null, relevance: 0.5 };
    const items = [0, 1, 2, 3].map((i) => ({ ...base, chunk: stored({ documentId: `same-${i % 2}` }), score: 0.9 - i / 10 }));
    const out = selectResults(items, { ...o, topKPerKnowledgeBase: 3, maxChunksPerDocument: 1 });
    expect(out.map((r) => r.chunk.id)).toEqual([items[0].chunk.id, items[1].chunk.id]);
  });

  it('selectResults stops early yet returns what duplicates, then caps, then budget return', () => {
    // near-duplicate groups across two knowledge bases and shared documents, so a chunk over its cap still
    // removes a later near-duplicate from the other knowledge base
    const base = { vectorScore: 0.9, textScore: 0.5, textMatch: true, vectorMatch: true, rrf: 0.01, rerankScore: null, relevance: 0.5 };
    const text = (g: number) => Array.from({ length: 40 }, (_, i) => `g${g}w${i}`).join(' ');
    const items = Array.from({ length: 30 }, (_, i) => ({
      ...base,
      chunk: stored({ knowledgeBaseId: `kb${i % 3 === 0 ? 2 : 1}`, documentId: `doc-${i % 4}`, content: text(i % 7) }),
      score: 1 - i / 100,
    }));
    for (const topK of [1, 2, 3, 5]) {
      const opts = { ...o, topKPerKnowledgeBase: topK, maxChunksPerDocument: 2, tokenBudget: 150 };
      const composed = applyTokenBudget(capPerGroup(dropNearDuplicates(items, 0.9), 2, topK), 150);
      expect(selectResults(items, opts).map((r) => r.chunk.id)).toEqual(composed.map((r) => r.chunk.id));
    }
  });
});

describe('weights', () => {
  it('picks the weights by embedder: the spec weights for provider embedders, the offline profile for local ones', () => {
    expect(weightsFor('openai/text-embedding-3-large')).toEqual({ vector: 0.6, text: 0.25, importance: 0.15 });
    const offline = weightsFor('local/hash-embed-v1');
    expect(offline).toBe(OFFLINE_EMBEDDER_WEIGHTS);
    expect(offline.vector + offline.text + offline.importance + (offline.title ?? 0)).toBeCloseTo(1);
  });

  it('takes the offline profile from the embedder trait, whatever the model is called', () => {
    expect(rankingProfileFor({ model: 'acme/hashed', lexical: true }).weights).toBe(OFFLINE_EMBEDDER_WEIGHTS);
    expect(rankingProfileFor({ model: 'acme/hashed', lexical: true }).candidatesPerKnowledgeBase).toBe(40);
    expect(rankingProfileFor({ model: 'local/hash-embed-v1', lexical: false }).weights).toBe(DEFAULT_RANKING.weights);
    expect(rankingProfileFor({ model: 'cohere/embed-v4.0' }).candidatesPerKnowledgeBase).toBeUndefined();
  });

  it('checks the floor on the spec weights under the offline profile: the same chunks pass, in a new order', () => {
    const offline = { ...DEFAULT_RANKING, ...rankingProfileFor('local/hash-embed-v1') };
    const spec = { ...DEFAULT_RANKING, ...rankingProfileFor('openai/text-embedding-3-large') };
    // near vector, partial text: passes the spec floor (0.6*0.4 + 0.25*0.2 + 0.075 = 0.365) though its
    // text-led score is 0.275; a text-only hit under the bar (0.25*0.6 + 0.075 = 0.225) stays out
    const near = stored();
    const strong = stored();
    const pool = fuse([cand(near, 0.4, 0.2)], [cand(strong, 0.1, 0.9), cand(stored(), 0, 0.6)], 60);
    const ids = (o: RankingOptions) => scoreCandidates(pool, null, o).map((r) => r.chunk.id);
    expect(ids(spec)).toEqual([near.id, strong.id]);
    expect(ids(offline)).toEqual([strong.id, near.id]);
    expect(scoreCandidates(pool, null, offline)[1].score).toBeCloseTo(0.13 * 0.4 + 0.6 * 0.2 + 0.075);
  });

  it('lets text lead the offline ranking: a strong text match beats a closer vector neighbour with a weak text match', () => {
    const [a, b] = [stored(), stored()];
    const pool = fuse([cand(b, 0.6, 0.3)], [cand(a, 0.3, 0.9)], 60);
    const noFloors = { ...DEFAULT_RANKING, minCombinedScore: 0 };
    const offline = { ...noFloors, weights: rankingProfileFor('local/hash-embed-v1').weights };
    expect(scoreCandidates(pool, null, offline).map((r) => r.chunk.id)).toEqual([a.id, b.id]);
    expect(scoreCandidates(pool, null, noFloors).map((r) => r.chunk.id)).toEqual([b.id, a.id]);
  });

  it('applies the vector floor to text matches only when asked to', () => {
    const [c] = fuse([], [cand(stored(), 0.1, 0.9)], 60);
    const exempt = scoreCandidates([c], null, { ...DEFAULT_RANKING, weights: OFFLINE_EMBEDDER_WEIGHTS });
    expect(exempt).toHaveLength(1);
    expect(
      scoreCandidates([c], null, { ...DEFAULT_RANKING, weights: OFFLINE_EMBEDDER_WEIGHTS, textMatchesSkipVectorFloor: false }),
    ).toEqual([]);
  });
});

describe('title match (offline profile)', () => {
  const offline = { ...DEFAULT_RANKING, minCombinedScore: 0, weights: OFFLINE_EMBEDDER_WEIGHTS };

  it('ranks the document the question names above siblings that repeat the name more often', () => {
    // the `pg` question of bench/eval: BM25 prefers the chunk of `pg-pool`, which says "pg" more often
    const pgPool = stored({ metadata: { documentTitle: 'pg-pool' } });
    const pg = stored({ metadata: { documentTitle: 'pg' } });
    const pool = fuse([cand(pgPool, 0.3, 0.945), cand(pg, 0.11, 0.864)], [cand(pgPool, 0.3, 0.945), cand(pg, 0.11, 0.864)], 60);
    const query = 'What is pg for and how do I use it?';
    expect(scoreCandidates(pool, null, offline, query).map((r) => r.chunk.id)).toEqual([pg.id, pgPool.id]);
    // without the title weight the order is BM25's
    const noTitle = { ...offline, weights: { ...OFFLINE_EMBEDDER_WEIGHTS, title: 0 } };
    expect(scoreCandidates(pool, null, noTitle, query).map((r) => r.chunk.id)).toEqual([pgPool.id, pg.id]);
  });

  it('is 0 under the spec weights and for titles made of function words', () => {
    const c = stored({ metadata: { documentTitle: 'is' } });
    const [f] = fuse([], [cand(c, 0, 0.5)], 60);
    expect(scoreCandidates([f], null, offline, 'what is it')[0].score).toBeCloseTo(0.6 * 0.5 + 0.075);
    const named = stored({ metadata: { documentTitle: 'lru-cache' } });
    const [g] = fuse([], [cand(named, 0, 0.5)], 60);
    const spec = { ...DEFAULT_RANKING, minCombinedScore: 0 };
    expect(scoreCandidates([g], null, spec, 'lru-cache options')[0].score).toBeCloseTo(0.25 * 0.5 + 0.075);
    expect(scoreCandidates([g], null, offline, 'lru-cache options')[0].score).toBeCloseTo(0.6 * 0.5 + 0.075 + 0.12);
  });
});
