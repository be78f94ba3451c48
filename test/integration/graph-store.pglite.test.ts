import { openDatabase } from '../../adapters/postgres/database';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { PostgresGraphStore } from '../../adapters/postgres-graph/postgres.graph-store';
import { graphStoreConformance } from '../conformance/graph-store.conformance';

graphStoreConformance('Postgres tables on PGlite (in memory)', async () => {
  const db = await openDatabase({ memory: true });
  await migrate(db.knex, [relationalMigrations]);
  return { store: new PostgresGraphStore(db.knex), teardown: () => db.close() };
});
