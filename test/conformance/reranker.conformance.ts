import type { Reranker } from '../../core/ports/reranker';

export interface RerankerHarness {
  reranker: Reranker;
  /** How many calls reached the provider (0 for the local one). */
  calls(): number;
}

const documents = [
  'Our office is closed on public holidays and weekends.',
  'To reset your password, open Settings and click reset password.',
  'Annual subscriptions are refunded within fourteen days.',
];

/** Shared behaviour of every Reranker adapter, run against local fakes. */
export function rerankerConformance(name: string, makeHarness: () => RerankerHarness): void {
  describe(`Reranker conformance: ${name}`, () => {
    let h: RerankerHarness;
    beforeEach(() => {
      h = makeHarness();
    });

    it('describes itself with an id and a provider/name model id', () => {
      expect(h.reranker.id.length).toBeGreaterThan(0);
      expect(h.reranker.model).toMatch(/^[a-z0-9][a-z0-9._-]*\/\S+$/);
    });

    it('returns each document once, best first, scores in 0-1, the obvious match on top', async () => {
      const { results, usage } = await h.reranker.rerank('reset password', documents);
      expect(results.map((r) => r.index).sort()).toEqual([0, 1, 2]);
      expect(results[0].index).toBe(1);
      for (const r of results) {
        expect(r.score).toBeGreaterThanOrEqual(0);
        expect(r.score).toBeLessThanOrEqual(1);
      }
      for (let i = 1; i < results.length; i++) expect(results[i - 1].score).toBeGreaterThanOrEqual(results[i].score);
      expect(usage.searchUnits).toBeGreaterThanOrEqual(1);
    });

    it('honours topN', async () => {
      const { results } = await h.reranker.rerank('refunded subscriptions', documents, { topN: 2 });
      expect(results).toHaveLength(2);
      expect(results[0].index).toBe(2);
    });

    it('answers no documents with no results, without a provider call', async () => {
      const before = h.calls();
      expect(await h.reranker.rerank('anything', [])).toEqual({ results: [], usage: { searchUnits: 0 } });
      expect(h.calls()).toBe(before);
    });
  });
}
