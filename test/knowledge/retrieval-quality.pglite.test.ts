import { runRetrievalQuality } from '../../bench/retrieval-quality.bench';

// Quality floors on the labelled corpus (deterministic: local embedder, PGlite). Figures in bench/results.
it('retrieves the answering document for the labelled questions and nothing for off-topic ones', async () => {
  const r = await runRetrievalQuality();
  expect(r.corpus).toEqual({ documents: 40, questions: 36 });
  for (const m of Object.values(r.rankings)) expect(m.recallAt3).toBeGreaterThanOrEqual(0.95);
  expect(r.rankings.hybrid.mrr).toBeGreaterThanOrEqual(r.rankings.vectorOnly.mrr);
  expect(r.productionDefaults.recallAt3).toBeGreaterThanOrEqual(0.9);
  expect(r.productionDefaults.offTopicAnswered).toBe(0);
}, 120_000);
