import { vectorIndexConformance } from '../../test/conformance/vector-index.conformance';
import { type Database, openDatabase } from '../postgres/database';
import { PGVECTOR_MISSING_MESSAGE } from './pgvector.schema';
import { PgvectorVectorIndex } from './pgvector.vector-index';

let db: Database;

vectorIndexConformance('pgvector on PGlite', {
  create: async () => {
    db = await openDatabase({ memory: true });
    return PgvectorVectorIndex.open({ knex: db.knex });
  },
  destroy: () => db?.close(),
});

const realPostgres = process.env.TEST_REAL_SERVICES === '1' ? describe : describe.skip;

realPostgres('pgvector on a Postgres server without the extension', () => {
  it('fails at boot with a message naming the extension and the alternative', async () => {
    const server = await openDatabase({ url: process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres', poolMax: 1 });
    try {
      const available = await server.knex.raw("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
      if (available.rows.length) return; // this server has pgvector: nothing to check here
      await expect(PgvectorVectorIndex.open({ knex: server.knex })).rejects.toThrow(PGVECTOR_MISSING_MESSAGE);
      await expect(PgvectorVectorIndex.open({ knex: server.knex })).rejects.toThrow(/VECTOR_INDEX=elasticsearch/);
    } finally {
      await server.close();
    }
  });
});

describe('pgvector index shared by two processes', () => {
  let shared: Database;
  beforeAll(async () => {
    shared = await openDatabase({ memory: true });
  });
  afterAll(() => shared.close());

  it('finds chunks of an embedding size another instance created after this one last looked', async () => {
    const reader = await PgvectorVectorIndex.open({ knex: shared.knex });
    const writer = await PgvectorVectorIndex.open({ knex: shared.knex });
    const org = '00000000-0000-4000-8000-000000000001';
    const kb = '00000000-0000-4000-8000-000000000002';
    const doc = '00000000-0000-4000-8000-000000000003';
    const unit = (i: number) => Array.from({ length: 8 }, (_, j) => (j === i ? 1 : 0));
    const query = { organizationId: org, knowledgeBaseIds: [kb], embedding: unit(0), text: 'lighthouse', candidatesPerKnowledgeBase: 5 };
    expect(await reader.search(query)).toEqual({ vector: [], text: [] }); // no 8-dimension table yet: the reader caches that
    await writer.upsert([
      {
        id: '00000000-0000-4000-8000-000000000004',
        organizationId: org,
        knowledgeBaseId: kb,
        documentId: doc,
        chunkIndex: 0,
        content: 'The lighthouse keeper',
        embedding: unit(0),
        embeddingType: 'text',
        importance: 0.5,
        metadata: {},
      },
    ]);
    const found = await reader.search(query);
    expect(found.vector.map((c) => c.chunk.content)).toEqual(['The lighthouse keeper']);
    expect(found.text.map((c) => c.chunk.content)).toEqual(['The lighthouse keeper']);
  });
});
