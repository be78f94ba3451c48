import { runRetrievalQuality } from '../../bench/retrieval-quality.bench';
import { openScratchDatabase, pgvectorOnServer } from '../support/databases';

// The labelled corpus's quality floors (retrieval-quality.pglite.test.ts) on the Postgres server with pgvector:
// the server's planner, text search and HNSW build must rank the same answers as the embedded store.
(pgvectorOnServer ? it : it.skip)(
  'retrieves the answering document for the labelled questions and nothing for off-topic ones, on a Postgres server',
  async () => {
    const scratch = await openScratchDatabase('retrieval_quality');
    try {
      const r = await runRetrievalQuality({ database: scratch.db });
      expect(r.corpus).toEqual({ documents: 40, questions: 36 });
      for (const m of Object.values(r.rankings)) expect(m.recallAt3).toBeGreaterThanOrEqual(0.95);
      expect(r.rankings.hybrid.mrr).toBeGreaterThanOrEqual(r.rankings.vectorOnly.mrr);
      expect(r.productionDefaults.recallAt3).toBeGreaterThanOrEqual(0.9);
      expect(r.productionDefaults.offTopicAnswered).toBe(0);
    } finally {
      await scratch.teardown();
    }
  },
  180_000,
);
