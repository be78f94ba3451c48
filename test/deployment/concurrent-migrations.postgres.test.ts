/**
 * Roles booting side by side on one Postgres server (TEST_REAL_SERVICES=1): api and worker both migrate at boot
 * (the relational set, and the vector index its own set), as docker-compose and the chart start them. Each
 * process below is a pool of its own on a fresh database; all must come up, with every migration applied once.
 */
import { PgvectorVectorIndex } from '../../adapters/pgvector/pgvector.vector-index';
import { type Database, openDatabase } from '../../adapters/postgres/database';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { pgvectorOnServer } from '../support/databases';
import { createScratchDatabase, type ScratchDatabase } from '../support/scratch-database';

const PROCESSES = 4;

(pgvectorOnServer ? describe : describe.skip)('migrations of roles booting side by side on a Postgres server', () => {
  let scratch: ScratchDatabase;
  const pools: Database[] = [];

  beforeAll(async () => {
    scratch = await createScratchDatabase('concurrent_migrations');
    for (let i = 0; i < PROCESSES; i++) pools.push(await openDatabase({ url: scratch.url, poolMax: 2 }));
  });
  afterAll(async () => {
    for (const db of pools) await db.close();
    await scratch?.drop();
  });

  it('applies every migration once however many processes migrate at the same moment', async () => {
    const applied = await Promise.all(pools.map((db) => migrate(db.knex, [relationalMigrations])));
    expect(applied.flat()).toHaveLength(relationalMigrations.migrations.length);
    const indexes = await Promise.all(pools.map((db) => PgvectorVectorIndex.open({ knex: db.knex })));
    await Promise.all(indexes.map((index) => index.close()));
    const vector = await pools[0].knex('vector_migrations').count<{ count: string }[]>('* as count');
    const names = (await pools[0].knex('vector_migrations').select('name')).map((r: { name: string }) => r.name);
    expect(new Set(names).size).toBe(names.length);
    expect(Number(vector[0].count)).toBeGreaterThan(0);
  }, 120_000);
});
