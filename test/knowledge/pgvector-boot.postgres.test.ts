import { openDatabase } from '../../adapters/postgres/database';
import { createScratchDatabase, describeWithRealServices, type ScratchDatabase } from '../support/databases';
import { startTestPlatform } from '../support/platform';

describeWithRealServices('boot against a Postgres server without pgvector', () => {
  let scratch: ScratchDatabase;
  beforeAll(async () => {
    scratch = await createScratchDatabase('kb_boot');
  });
  afterAll(() => scratch.drop());

  it('fails with an error naming the extension and the alternative, before creating any table', async () => {
    const db = await openDatabase({ url: scratch.url, poolMax: 1 });
    try {
      const available = await db.knex.raw("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
      if (available.rows.length) return; // this server has pgvector: the failure cannot happen here
      await expect(startTestPlatform({ DATABASE_URL: scratch.url, VECTOR_INDEX: 'pgvector' }, { memoryDatabase: false })).rejects.toThrow(
        /lacks the pgvector extension \(vector\).*VECTOR_INDEX=elasticsearch/s,
      );
      const tables = await db.knex.raw("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'");
      expect(tables.rows[0].n).toBe(0);
    } finally {
      await db.close();
    }
  });
});
