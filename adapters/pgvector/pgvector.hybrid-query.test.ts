import { randomUUID } from 'node:crypto';

import type { HybridSearchQuery, VectorChunk } from '../../core/ports/vector-index';
import { createScratchDatabase, pgvectorOnServer } from '../../test/support/databases';
import { type Database, openDatabase } from '../postgres/database';
import { PgvectorVectorIndex } from './pgvector.vector-index';

const DIMS = 8;
const PER_KB = 60;

function unitVectors(seed: number, n: number): number[][] {
  let s = seed;
  const random = () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32 - 0.5;
  return Array.from({ length: n }, () => {
    const v = Array.from({ length: DIMS }, random);
    const norm = Math.hypot(...v);
    return v.map((x) => x / norm);
  });
}

hybridPathSuite('pgvector hybrid search paths on PGlite', async () => {
  const db = await openDatabase({ memory: true });
  return { db, drop: async () => undefined };
});

// On a server every knowledge base is its own statement, side by side on the pool's connections (pgvector built by
// bin/install-pgvector.sh).
(pgvectorOnServer ? describe : describe.skip)('pgvector hybrid search paths on a Postgres server', () => {
  hybridPathSuite(
    'with pgvector',
    async () => {
      const scratch = await createScratchDatabase('hybrid_paths');
      return { db: await openDatabase({ url: scratch.url }), drop: () => scratch.drop() };
    },
    { parallelKnowledgeBases: true },
  );
});

function hybridPathSuite(
  name: string,
  open: () => Promise<{ db: Database; drop(): Promise<void> }>,
  options: { parallelKnowledgeBases?: boolean } = {},
) {
  describe(name, () => {
    let db: Database;
    let drop: () => Promise<void>;
    /** Every knowledge base here is above its budget (20 rows of 8 dimensions): the HNSW walk. */
    let graph: PgvectorVectorIndex;
    /** The default budget: exact scans. */
    let exact: PgvectorVectorIndex;
    const organizationId = randomUUID();
    const kbs = [randomUUID(), randomUUID(), randomUUID()];
    const queries = unitVectors(99, 12);

    beforeAll(async () => {
      ({ db, drop } = await open());
      graph = await PgvectorVectorIndex.open({ knex: db.knex, exactScanBudget: 20 * DIMS, ...options });
      exact = await PgvectorVectorIndex.open({ knex: db.knex, ...options });
      const vectors = unitVectors(7, PER_KB * (kbs.length + 1));
      const chunk = (i: number, org: string, kb: string): VectorChunk => ({
        id: randomUUID(),
        organizationId: org,
        knowledgeBaseId: kb,
        documentId: randomUUID(),
        chunkIndex: 0,
        content: `chunk ${i} about volcanoes and lava`,
        embedding: vectors[i],
        embeddingType: 'text',
        importance: 0.5,
        metadata: {},
      });
      const rows = vectors.map((_, i) =>
        i < PER_KB * kbs.length ? chunk(i, organizationId, kbs[i % kbs.length]) : chunk(i, randomUUID(), kbs[0]),
      );
      await graph.upsert(rows);
    });
    afterAll(async () => {
      await graph.close();
      await exact.close();
      await db.close();
      await drop();
    });

    const query = (embedding: number[], knowledgeBaseIds: string[], text: string | null = null): HybridSearchQuery => ({
      organizationId,
      knowledgeBaseIds,
      embedding,
      text,
      candidatesPerKnowledgeBase: 10,
    });
    const ids = (cs: { chunk: { id: string } }[]) => cs.map((c) => c.chunk.id);

    it('walks the HNSW index above the exact-scan budget, filtered by knowledge base inside the walk, and finds the exact neighbours', async () => {
      let found = 0;
      for (const q of queries) {
        const walked = await graph.search(query(q, [kbs[0]]));
        const truth = await exact.search(query(q, [kbs[0]]));
        expect(walked.vector).toHaveLength(10);
        expect(walked.vector.every((c) => c.chunk.knowledgeBaseId === kbs[0] && c.chunk.organizationId === organizationId)).toBe(true);
        const best = new Set(ids(truth.vector));
        found += ids(walked.vector).filter((id) => best.has(id)).length;
      }
      expect(found / (queries.length * 10)).toBeGreaterThanOrEqual(0.95);
    });

    it('answers every knowledge base with its own candidates, on both paths', async () => {
      for (const index of [graph, exact]) {
        const { vector, text } = await index.search(query(queries[0], kbs, 'volcanoes lava'));
        for (const kb of kbs) {
          expect(vector.filter((c) => c.chunk.knowledgeBaseId === kb)).toHaveLength(10);
          expect(text.filter((c) => c.chunk.knowledgeBaseId === kb)).toHaveLength(10);
        }
        // every vector candidate is scored on the text too (it holds both query terms)
        expect(vector.every((c) => (c.textScore ?? 0) > 0)).toBe(true);
      }
    });

    it('runs searches from every pool connection at once (on PGlite, over its one session)', async () => {
      // the prepared statements are per session: PGlite's clients share one, so a second Parse of a name would fail
      const alone = await Promise.all(queries.map((q) => exact.search(query(q, kbs, 'lava'))));
      const together = await Promise.all([...queries, ...queries].map((q) => exact.search(query(q, kbs, 'lava'))));
      expect(together.map((r) => ids(r.vector))).toEqual([...alone, ...alone].map((r) => ids(r.vector)));
      expect(together.map((r) => ids(r.text))).toEqual([...alone, ...alone].map((r) => ids(r.text)));
    });
  });
}
