import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { PostgresGraphStore } from '../../adapters/postgres-graph/postgres.graph-store';
import { graphStoreConformance } from '../conformance/graph-store.conformance';
import { describeWithRealServices, openScratchDatabase } from '../support/databases';

// The real Postgres server of this machine, a fresh database for this file, dropped afterwards.
describeWithRealServices('Postgres server (TEST_REAL_SERVICES=1)', () => {
  graphStoreConformance('Postgres tables on the Postgres server', async () => {
    const scratch = await openScratchDatabase('graph');
    await migrate(scratch.db.knex, [relationalMigrations]);
    return { store: new PostgresGraphStore(scratch.db.knex), teardown: scratch.teardown };
  });
});
