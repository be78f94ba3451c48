import { randomUUID } from 'node:crypto';

import type { VectorChunk } from '../../core/ports/vector-index';
import { vectorIndexConformance } from '../../test/conformance/vector-index.conformance';
import { type Database, openDatabase } from '../postgres/database';
import { migrate } from '../postgres/migrator';
import { pgvectorVectorIndex } from './pgvector.adapters';
import { checkHnswBuild, currentHnswBuild, EMBEDDED_HNSW, PGVECTOR_HNSW_DEFAULTS } from './pgvector.hnsw';
import { pgvectorMigrations } from './pgvector.schema';
import { PgvectorVectorIndex, toVectorBinary } from './pgvector.vector-index';

let embeddedDb: Database;
vectorIndexConformance('pgvector on PGlite with the embedded store’s HNSW build (m 8, ef_construction 32)', {
  create: async () => {
    embeddedDb = await openDatabase({ memory: true });
    return PgvectorVectorIndex.open({ knex: embeddedDb.knex, hnsw: EMBEDDED_HNSW, rowsPerTransaction: 16 });
  },
  destroy: () => embeddedDb?.close(),
});

// The local Postgres server has no pgvector; point TEST_PGVECTOR_DATABASE_URL at one that has it to run this.
const pgvectorServer = process.env.TEST_PGVECTOR_DATABASE_URL;
let serverDb: Database;
(pgvectorServer
  ? vectorIndexConformance
  : () => describe.skip('pgvector on a Postgres server (TEST_PGVECTOR_DATABASE_URL unset)', () => it.todo('conformance')))(
  'pgvector on a Postgres server with the embedded store’s HNSW build',
  {
    create: async () => {
      serverDb = await openDatabase({ url: pgvectorServer, poolMax: 2 });
      return PgvectorVectorIndex.open({ knex: serverDb.knex, hnsw: EMBEDDED_HNSW });
    },
    destroy: () => serverDb?.close(),
  },
);

const DIMS = 16;
const vector = (seed: number) => Array.from({ length: DIMS }, (_, i) => Math.sin(seed * 7.1 + i * 1.3));
const chunk = (org: string, kb: string, doc: string, i: number): VectorChunk => ({
  id: randomUUID(),
  organizationId: org,
  knowledgeBaseId: kb,
  documentId: doc,
  chunkIndex: i,
  content: `passage ${i} about harbour number ${i}`,
  embedding: vector(i),
  embeddingType: 'text',
  importance: 0.5,
  metadata: {},
});

describe('pgvector HNSW build parameters', () => {
  let db: Database;
  beforeAll(async () => {
    db = await openDatabase({ memory: true });
  });
  afterAll(() => db.close());
  const INDEX = `kv_chunks_${DIMS}_embedding_hnsw`;
  const nearest = async (index: PgvectorVectorIndex, org: string, kb: string) =>
    (
      await index.search({ organizationId: org, knowledgeBaseIds: [kb], embedding: vector(3), text: null, candidatesPerKnowledgeBase: 3 })
    ).vector.map((c) => c.chunk.chunkIndex);

  it('builds new indexes with the configured parameters, and rebuilds them when reopened with others', async () => {
    const org = randomUUID();
    const kb = randomUUID();
    const doc = randomUUID();
    const index = await PgvectorVectorIndex.open({ knex: db.knex, hnsw: EMBEDDED_HNSW });
    await index.replaceDocument(
      { organizationId: org, knowledgeBaseId: kb, documentId: doc },
      Array.from({ length: 40 }, (_, i) => chunk(org, kb, doc, i)),
    );
    expect(await currentHnswBuild(db.knex, INDEX)).toEqual(EMBEDDED_HNSW);
    const before = await nearest(index, org, kb);
    expect(before[0]).toBe(3);

    const other = await PgvectorVectorIndex.open({ knex: db.knex, hnsw: { m: 12, efConstruction: 48 } });
    expect(await currentHnswBuild(db.knex, INDEX)).toEqual({ m: 12, efConstruction: 48 });
    expect(await nearest(other, org, kb)).toEqual(before);
    // pgvector's defaults leave no WITH clause (the definition an index made before 0070 has)
    await PgvectorVectorIndex.open({ knex: db.knex });
    const definition = await db.knex.raw(
      'SELECT indexdef, reloptions FROM pg_indexes JOIN pg_class ON relname = indexname WHERE indexname = ?',
      [INDEX],
    );
    expect(definition.rows[0].reloptions).toBeNull();
    expect(await currentHnswBuild(db.knex, INDEX)).toEqual(PGVECTOR_HNSW_DEFAULTS);
  });

  it('migration 0070 rebuilds an index made before it, keeping every row searchable', async () => {
    const org = randomUUID();
    const kb = randomUUID();
    const doc = randomUUID();
    const index = await PgvectorVectorIndex.open({ knex: db.knex });
    await index.replaceDocument(
      { organizationId: org, knowledgeBaseId: kb, documentId: doc },
      Array.from({ length: 40 }, (_, i) => chunk(org, kb, doc, i)),
    );
    const before = await nearest(index, org, kb);
    await db.knex('vector_migrations').where({ name: '0070_hnsw_build_parameters' }).delete();
    expect(await currentHnswBuild(db.knex, INDEX)).toEqual(PGVECTOR_HNSW_DEFAULTS);

    // the migration alone (open would also apply the build)
    expect(await migrate(db.knex, [pgvectorMigrations(EMBEDDED_HNSW)])).toEqual(['0070_hnsw_build_parameters']);
    expect(await currentHnswBuild(db.knex, INDEX)).toEqual(EMBEDDED_HNSW);
    expect(await db.knex.raw('SELECT count(*)::int AS n FROM pg_class WHERE relname = ?', [`${INDEX}_rebuild`])).toMatchObject({
      rows: [{ n: 0 }],
    });
    // the rebuilt index is usable (on 80 rows the planner prefers a scan unless told otherwise)
    const plan = await db.knex.transaction(async (trx) => {
      await trx.raw('SET LOCAL enable_seqscan = off');
      const r = await trx.raw(`EXPLAIN SELECT id FROM kv_chunks_${DIMS} ORDER BY embedding <=> ? LIMIT 3`, [`[${vector(3).join(',')}]`]);
      return r.rows as unknown[];
    });
    expect(JSON.stringify(plan)).toContain(`Index Scan using ${INDEX}`);
    expect(await nearest(index, org, kb)).toEqual(before);
    expect(await index.countByDocument(org, doc)).toBe(40);
  });

  it('uses the embedded build on PGlite unless the settings say otherwise; ef_construction follows a larger m', async () => {
    const context = { dataDir: '', log: () => undefined, db };
    const open = async (settings: Record<string, unknown>) => {
      const index = (await pgvectorVectorIndex.create(settings, context)) as PgvectorVectorIndex;
      await index.close();
      return index.hnsw;
    };
    expect(await open({})).toEqual(EMBEDDED_HNSW);
    expect(await open({ PGVECTOR_HNSW_M: 24 })).toEqual({ m: 24, efConstruction: 48 });
    expect(await open({ PGVECTOR_HNSW_M: 16, PGVECTOR_HNSW_EF_CONSTRUCTION: 64 })).toEqual(PGVECTOR_HNSW_DEFAULTS);
  });

  it('refuses parameters pgvector would refuse, naming them', () => {
    expect(() => checkHnswBuild({ m: 1, efConstruction: 32 })).toThrow(/m must be an integer from 2 to 100, got 1/);
    expect(() => checkHnswBuild({ m: 16, efConstruction: 20 })).toThrow(/ef_construction must be an integer from 2 \* m to 1000, got 20/);
    expect(checkHnswBuild(EMBEDDED_HNSW)).toBe(EMBEDDED_HNSW);
  });
});

describe('pgvector binary vector input', () => {
  it('writes the dimension count, a zero and big-endian float32s, non-finite entries as 0', () => {
    const bytes = toVectorBinary([1.5, -2, Number.NaN, Number.POSITIVE_INFINITY]);
    expect(bytes.length).toBe(4 + 4 * 4);
    expect(bytes.readInt16BE(0)).toBe(4);
    expect(bytes.readInt16BE(2)).toBe(0);
    expect([0, 1, 2, 3].map((i) => bytes.readFloatBE(4 + 4 * i))).toEqual([1.5, -2, 0, 0]);
  });
});
