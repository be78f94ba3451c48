/** Ranking metrics of the retrieval evaluation, and an in-memory BM25 baseline over the same chunks. */
import { terms } from '../../adapters/local-ai/text-features';

export interface ClassMetrics {
  questions: number;
  recallAt1: number;
  recallAt3: number;
  mrrAt3: number;
  /** Questions with fewer than 3 documents returned. */
  underThree: number;
}

const round = (x: number) => Math.round(x * 1000) / 1000;

/** `ranked[i]` is the ranked document ids returned for question i; `expected[i]` its answer. */
export function score(ranked: string[][], expected: string[]): ClassMetrics {
  let r1 = 0;
  let r3 = 0;
  let rr = 0;
  let under = 0;
  ranked.forEach((docs, i) => {
    const rank = docs.indexOf(expected[i]);
    if (rank === 0) r1++;
    if (rank >= 0 && rank < 3) {
      r3++;
      rr += 1 / (rank + 1);
    }
    if (docs.length < 3) under++;
  });
  const n = Math.max(1, ranked.length);
  return { questions: ranked.length, recallAt1: round(r1 / n), recallAt3: round(r3 / n), mrrAt3: round(rr / n), underThree: under };
}

/** Unique document ids in rank order (one chunk per document). */
export function documentsOf(chunkDocs: string[], limit = 10): string[] {
  return [...new Set(chunkDocs)].slice(0, limit);
}

/**
 * Plain Okapi BM25 (k1 1.2, b 0.75) over chunk texts, the baseline the issue measures against: the same
 * stemmer and stop words as the local AI adapters, no phrase or identifier handling.
 */
export class InMemoryBm25 {
  private readonly tf: Map<string, number>[] = [];
  private readonly length: number[] = [];
  private readonly df = new Map<string, number>();
  private avg = 0;

  constructor(private readonly chunks: { documentId: string; content: string }[]) {
    for (const c of chunks) {
      const tf = new Map<string, number>();
      let n = 0;
      for (const t of terms(c.content)) {
        if (t.stop) continue;
        n++;
        tf.set(t.stem, (tf.get(t.stem) ?? 0) + 1);
      }
      for (const k of tf.keys()) this.df.set(k, (this.df.get(k) ?? 0) + 1);
      this.tf.push(tf);
      this.length.push(n);
    }
    this.avg = this.length.reduce((a, b) => a + b, 0) / Math.max(1, chunks.length);
  }

  /** Document ids ranked by their best chunk. */
  search(query: string, limit = 10): string[] {
    const q = [
      ...new Set(
        terms(query)
          .filter((t) => !t.stop)
          .map((t) => t.stem),
      ),
    ];
    const N = this.chunks.length;
    const scored: { doc: string; s: number }[] = [];
    this.tf.forEach((tf, i) => {
      let s = 0;
      for (const t of q) {
        const f = tf.get(t);
        if (!f) continue;
        const df = this.df.get(t)!;
        const idf = Math.log(1 + (N - df + 0.5) / (df + 0.5));
        s += (idf * f * 2.2) / (f + 1.2 * (0.25 + (0.75 * this.length[i]) / this.avg));
      }
      if (s > 0) scored.push({ doc: this.chunks[i].documentId, s });
    });
    scored.sort((a, b) => b.s - a.s);
    return documentsOf(
      scored.map((x) => x.doc),
      limit,
    );
  }
}
