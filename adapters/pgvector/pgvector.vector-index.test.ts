import { openDatabase, type Database } from '../postgres/database';
import { vectorIndexConformance } from '../../test/conformance/vector-index.conformance';
import { PgvectorVectorIndex } from './pgvector.vector-index';
import { PGVECTOR_MISSING_MESSAGE } from './pgvector.schema';

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
