/**
 * The one retrieval use case, shared by search and the chat pipeline:
 *   embed the query -> hybrid candidates (vector + full text) per knowledge base -> reciprocal rank fusion
 *   -> optional rerank -> combined score and floors -> near-duplicates, per-document and per-KB caps,
 *   token budget (rules in ranking.ts).
 * No permission check here: callers pass knowledge bases the caller may read. Do not call it inside
 * `store.transaction` (the vector index uses its own connection).
 */
import type { BillingDeps } from '../billing/billing';
import { charge } from '../billing/billing';
import { type BillingEvent } from '../billing/wallet';
import type { Embedder } from '../ports/embedder';
import type { Reranker } from '../ports/reranker';
import type { Store } from '../ports/store';
import type { Candidate, HybridCandidates } from '../ports/vector-index';
import type { VectorIndex } from '../ports/vector-index';
import type { KnowledgeBase } from './knowledge-base';
import { type LearningPriorSource, withLearningPrior } from './learning-prior';
import type { KnowledgePricing } from './pricing';
import { DEFAULT_RANKING, fuse, type RankedChunk, type RankingOptions, rankingProfileFor, scoreCandidates, selectResults } from './ranking';

export interface RetrievalDeps {
  store: Store;
  vectorIndex: VectorIndex;
  embedder: Embedder;
  reranker: Reranker | null;
  /** Learned per-chunk priors blended into importance (learning-prior.ts); absent: plain ranking. */
  learningPrior?: LearningPriorSource | null;
}

export interface RetrievalOptions extends Partial<Omit<RankingOptions, 'weights'>> {
  weights?: RankingOptions['weights'];
  /** Candidates per knowledge base from each of the vector and text searches (default 20; 40 offline, ranking.ts). */
  candidatesPerKnowledgeBase?: number;
  /** Use the reranker when one is configured (default true). */
  rerank?: boolean;
  /** Which searches to run (benchmarks compare them); default both. */
  mode?: 'hybrid' | 'vector' | 'text';
}

export interface RetrievalUsage {
  embeddingModel: string | null;
  embeddingTokens: number;
  rerankModel: string | null;
  rerankSearchUnits: number;
}

export interface RetrievedChunk {
  chunkId: string;
  knowledgeBaseId: string;
  documentId: string;
  chunkIndex: number;
  content: string;
  embeddingType: RankedChunk['chunk']['embeddingType'];
  metadata: Record<string, unknown>;
  /** Combined score, 0-1. */
  score: number;
  vectorScore: number | null;
  textScore: number | null;
  rerankScore: number | null;
  matchedBy: ('vector' | 'text')[];
}

export interface RetrievalResult {
  chunks: RetrievedChunk[];
  usage: RetrievalUsage;
}

export const DEFAULT_CANDIDATES_PER_KB = 20;

export async function retrieve(
  deps: RetrievalDeps,
  input: {
    organizationId: string;
    knowledgeBaseIds: string[];
    query: string;
    options?: RetrievalOptions;
    /** The knowledge bases when the caller has already read them (search checks access with them): not read again. */
    knowledgeBases?: KnowledgeBase[];
  },
): Promise<RetrievalResult> {
  const { candidatesPerKnowledgeBase: profileDepth, ...profile } = rankingProfileFor(deps.embedder);
  const o: RankingOptions = {
    ...DEFAULT_RANKING,
    ...profile,
    ...stripUndefined(input.options ?? {}),
  } as RankingOptions;
  const mode = input.options?.mode ?? 'hybrid';
  const perKb = input.options?.candidatesPerKnowledgeBase ?? profileDepth ?? DEFAULT_CANDIDATES_PER_KB;
  const usage: RetrievalUsage = { embeddingModel: null, embeddingTokens: 0, rerankModel: null, rerankSearchUnits: 0 };
  const query = input.query.trim();
  const ids = [...new Set(input.knowledgeBaseIds)];
  const kbs = input.knowledgeBases
    ? input.knowledgeBases.filter((kb) => kb.organizationId === input.organizationId && ids.includes(kb.id))
    : await deps.store.repos.knowledgeBases.findMany(input.organizationId, ids);
  if (!query || kbs.length === 0) return { chunks: [], usage };

  // Knowledge bases embedded with another model than the configured one are searched by text only.
  const groups = new Map<string, { dimensions: number | null; ids: string[] }>();
  for (const kb of kbs) {
    const embedding = kb.settings?.embedding; // absent until the first document is processed
    const comparable = !!embedding && embedding.model === deps.embedder.model && mode !== 'text';
    const key = comparable ? String(embedding.dimensions) : 'text';
    const g = groups.get(key) ?? { dimensions: comparable ? embedding.dimensions : null, ids: [] };
    g.ids.push(kb.id);
    groups.set(key, g);
  }
  const lists: HybridCandidates[] = await Promise.all(
    [...groups.values()].map(async (g) => {
      let embedding: number[] | null = null;
      if (g.dimensions !== null) {
        const e = await deps.embedder.embed([query], { dimensions: g.dimensions, purpose: 'query' });
        embedding = e.vectors[0];
        usage.embeddingModel = e.model;
        usage.embeddingTokens += e.usage.tokens;
      }
      return deps.vectorIndex.search({
        organizationId: input.organizationId,
        knowledgeBaseIds: g.ids,
        embedding,
        text: mode === 'vector' ? null : query,
        candidatesPerKnowledgeBase: perKb,
      });
    }),
  );
  const byVector = (a: Candidate, b: Candidate) => (b.vectorScore ?? 0) - (a.vectorScore ?? 0);
  const byText = (a: Candidate, b: Candidate) => (b.textScore ?? 0) - (a.textScore ?? 0);
  const vector = lists.flatMap((l) => l.vector).sort(byVector);
  const text = mode === 'vector' ? [] : lists.flatMap((l) => l.text).sort(byText);
  const pool = await withLearningPrior(deps.learningPrior, input.organizationId, fuse(vector, text, o.rrfK).slice(0, o.poolSize));

  let rerankScores: (number | null)[] | null = null;
  if (deps.reranker && input.options?.rerank !== false && pool.length > 0) {
    const r = await deps.reranker.rerank(
      query,
      pool.map((c) => c.chunk.content),
      { topN: pool.length },
    );
    rerankScores = pool.map(() => 0);
    for (const x of r.results) rerankScores[x.index] = x.score;
    usage.rerankModel = deps.reranker.model;
    usage.rerankSearchUnits += r.usage.searchUnits;
  }
  const selected = selectResults(scoreCandidates(pool, rerankScores, o, query), o);
  return {
    chunks: selected.map((r) => ({
      chunkId: r.chunk.id,
      knowledgeBaseId: r.chunk.knowledgeBaseId,
      documentId: r.chunk.documentId,
      chunkIndex: r.chunk.chunkIndex,
      content: r.chunk.content,
      embeddingType: r.chunk.embeddingType,
      metadata: r.chunk.metadata,
      score: round(r.score),
      vectorScore: r.vectorScore === null ? null : round(r.vectorScore),
      textScore: r.textScore === null ? null : round(r.textScore),
      rerankScore: r.rerankScore === null ? null : round(r.rerankScore),
      matchedBy: [...(r.vectorMatch ? (['vector'] as const) : []), ...(r.textMatch ? (['text'] as const) : [])],
    })),
    usage,
  };
}

const round = (x: number) => Math.round(x * 10000) / 10000;

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/** What a retrieval's embedding and reranking cost at the providers' prices (0 for free models). */
export function retrievalProviderUsd(pricing: KnowledgePricing, usage: RetrievalUsage): number {
  const embeddingUsd = usage.embeddingModel ? pricing.embeddingUsd(usage.embeddingModel, usage.embeddingTokens) : 0;
  const rerankUsd = usage.rerankModel ? pricing.rerankUsd(usage.rerankModel, usage.rerankSearchUnits) : 0;
  return embeddingUsd + rerankUsd;
}

/**
 * Records what a retrieval cost. A search is an operation of its own and always records its event, with cost 0
 * for free models (docs/contracts.md "Credits": `recordFree`); retrieval inside a chat is covered by the chat's own event,
 * so there only paid embedding or rerank calls add one.
 */
export async function chargeRetrieval(
  deps: { billing: BillingDeps; pricing: KnowledgePricing },
  organizationId: string,
  usage: RetrievalUsage,
  reference: Record<string, unknown>,
  options: { recordFree?: boolean } = {},
): Promise<BillingEvent | null> {
  const providerCostUsd = retrievalProviderUsd(deps.pricing, usage);
  if (providerCostUsd <= 0 && !options.recordFree) return null;
  return charge(deps.billing, {
    organizationId,
    kind: 'knowledge_search',
    model: usage.embeddingModel ?? usage.rerankModel,
    promptTokens: usage.embeddingTokens,
    providerCostUsd,
    reference: { ...reference, rerankModel: usage.rerankModel, rerankSearchUnits: usage.rerankSearchUnits },
  });
}
