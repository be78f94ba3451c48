import { randomUUID } from 'node:crypto';
import knex from 'knex';
import { startTestPlatform } from '../support/platform';

const SERVER = process.env.TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432';
const real = process.env.TEST_REAL_SERVICES === '1' ? describe : describe.skip;

real('boot against a Postgres server without pgvector', () => {
  const database = `kb_boot_${randomUUID().replace(/-/g, '').slice(0, 12)}`;
  const admin = knex({ client: 'pg', connection: `${SERVER}/postgres`, pool: { min: 0, max: 1 } });

  beforeAll(() => admin.raw(`CREATE DATABASE ${database}`));
  afterAll(async () => {
    await admin.raw(`DROP DATABASE IF EXISTS ${database} WITH (FORCE)`);
    await admin.destroy();
  });

  it('fails with an error naming the extension and the alternative, before creating any table', async () => {
    const available = await admin.raw("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'");
    if (available.rows.length) return; // this server has pgvector: the failure cannot happen here
    await expect(startTestPlatform({ DATABASE_URL: `${SERVER}/${database}`, VECTOR_INDEX: 'pgvector' }, { memoryDatabase: false })).rejects.toThrow(
      /lacks the pgvector extension \(vector\).*VECTOR_INDEX=elasticsearch/s,
    );
    const db = knex({ client: 'pg', connection: `${SERVER}/${database}`, pool: { min: 0, max: 1 } });
    try {
      const tables = await db.raw("SELECT count(*)::int AS n FROM information_schema.tables WHERE table_schema = 'public'");
      expect(tables.rows[0].n).toBe(0);
    } finally {
      await db.destroy();
    }
  });
});
