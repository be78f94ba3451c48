import type { Reranker, RerankResult } from '../../core/ports/reranker';
import { terms } from './text-features';

export const LOCAL_RERANK_MODEL = 'local/lexical-rerank-v1';

export type LocalRerankerOptions = Record<string, never>;
export const localRerankerOptionsSchema = { type: 'object', properties: {}, additionalProperties: false } as const;

const K1 = 1.2;
const B = 0.75;
/** Share of the score from idf-weighted query-term coverage, BM25 saturation, and query word pairs in order. */
const W_COVERAGE = 0.55;
const W_BM25 = 0.3;
const W_PAIRS = 0.15;

interface Analysed {
  tf: Map<string, number>;
  pairs: Set<string>;
  length: number;
}

function analyse(text: string): Analysed {
  const tf = new Map<string, number>();
  const pairs = new Set<string>();
  let previous = '';
  let length = 0;
  for (const t of terms(text)) {
    if (t.stop) continue;
    length++;
    tf.set(t.stem, (tf.get(t.stem) ?? 0) + 1);
    if (previous) pairs.add(`${previous} ${t.stem}`);
    previous = t.stem;
  }
  return { tf, pairs, length };
}

/**
 * Scores each document 0-1 against the query: idf-weighted coverage of the query's content words, BM25 term
 * saturation with length normalisation (idf and average length taken over the documents passed in), and a bonus
 * for query word pairs found in the same order. A document sharing no content word with the query scores 0.
 */
export function lexicalScores(query: string, documents: string[]): number[] {
  const q = analyse(query);
  const queryTerms = [...q.tf.keys()];
  if (queryTerms.length === 0 || documents.length === 0) return documents.map(() => 0);

  const docs = documents.map(analyse);
  const n = docs.length;
  const avgLength = docs.reduce((sum, d) => sum + d.length, 0) / n || 1;
  const idf = new Map<string, number>();
  for (const t of queryTerms) {
    const df = docs.reduce((count, d) => count + (d.tf.has(t) ? 1 : 0), 0);
    idf.set(t, Math.log(1 + (n - df + 0.5) / (df + 0.5)));
  }
  const idfTotal = queryTerms.reduce((sum, t) => sum + idf.get(t)!, 0);

  return docs.map((d) => {
    let covered = 0;
    let bm25 = 0;
    for (const t of queryTerms) {
      const tf = d.tf.get(t);
      if (!tf) continue;
      const w = idf.get(t)!;
      covered += w;
      bm25 += (w * tf * (K1 + 1)) / (tf + K1 * (1 - B + (B * d.length) / avgLength));
    }
    if (covered === 0) return 0;
    const coverage = covered / idfTotal;
    const saturation = bm25 / (idfTotal * (K1 + 1));
    if (q.pairs.size === 0) return clamp(coverage * (W_COVERAGE + W_PAIRS) + saturation * W_BM25);
    let pairs = 0;
    for (const p of q.pairs) if (d.pairs.has(p)) pairs++;
    return clamp(coverage * W_COVERAGE + saturation * W_BM25 + (pairs / q.pairs.size) * W_PAIRS);
  });
}

const clamp = (x: number) => Math.min(1, Math.max(0, x));

/** Offline reranker over the same tokenizer as the local embedder. */
export class LocalReranker implements Reranker {
  readonly id = 'local-lexical-rerank';
  readonly model = LOCAL_RERANK_MODEL;

  async rerank(
    query: string,
    documents: string[],
    options?: { topN?: number },
  ): Promise<{ results: RerankResult[]; usage: { searchUnits: number } }> {
    const scores = lexicalScores(query, documents);
    const results = scores
      .map((score, index) => ({ index, score }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, options?.topN ?? documents.length);
    // Same unit as Cohere: one search unit per query over up to 100 documents.
    return { results, usage: { searchUnits: Math.ceil(documents.length / 100) } };
  }
}
