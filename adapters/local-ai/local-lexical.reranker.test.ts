import { rerankerConformance } from '../../test/conformance/reranker.conformance';
import { LOCAL_RERANK_MODEL, LocalReranker } from './local-lexical.reranker';

rerankerConformance('local lexical', () => ({ reranker: new LocalReranker(), calls: () => 0 }));

describe('LocalReranker', () => {
  const reranker = new LocalReranker();
  const documents = [
    'Our office is closed on public holidays and weekends.',
    'The password reset link expires after 24 hours.',
    'To reset your password, open Settings, choose Security and click Reset password.',
    'Passwords can be changed from the security settings page.',
  ];

  it('describes itself', () => {
    expect(reranker.model).toBe(LOCAL_RERANK_MODEL);
    expect(reranker.model).toBe('local/lexical-rerank-v1');
  });

  it('orders documents by query-term coverage with 0-1 scores', async () => {
    const { results, usage } = await reranker.rerank('How do I reset my password?', documents);
    expect(results.map((r) => r.index)).toEqual([2, 1, 3, 0]);
    for (const r of results) {
      expect(r.score).toBeGreaterThanOrEqual(0);
      expect(r.score).toBeLessThanOrEqual(1);
    }
    expect(results[0].score).toBeGreaterThan(0.7);
    expect(results[3].score).toBe(0);
    expect(usage.searchUnits).toBe(1);
  });

  it('honours topN and is deterministic', async () => {
    const a = await reranker.rerank('reset password', documents, { topN: 2 });
    const b = await reranker.rerank('reset password', documents, { topN: 2 });
    expect(a.results).toHaveLength(2);
    expect(b).toEqual(a);
  });

  it('scores 0 for a query of stopwords only or no documents', async () => {
    expect((await reranker.rerank('what is it', documents)).results.every((r) => r.score === 0)).toBe(true);
    expect(await reranker.rerank('password', [])).toEqual({ results: [], usage: { searchUnits: 0 } });
  });
});
