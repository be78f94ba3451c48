import { openDatabase } from '../../adapters/postgres/database';
import { relationalStoreConformance } from '../conformance/relational-store.conformance';
import { createScratchDatabase, describeWithRealServices } from '../support/databases';

// The real Postgres server of this machine, a fresh database for this file, dropped afterwards.
describeWithRealServices('Postgres server (TEST_REAL_SERVICES=1)', () => {
  relationalStoreConformance('Postgres', async () => {
    const scratch = await createScratchDatabase('store');
    const db = await openDatabase({ url: scratch.url });
    return {
      db,
      teardown: async () => {
        await db.close();
        await scratch.drop();
      },
    };
  });
});
