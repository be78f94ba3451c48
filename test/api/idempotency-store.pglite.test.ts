import { openDatabase } from '../../adapters/postgres/database';
import { idempotencyStoreSuite } from './idempotency-store.suite';

idempotencyStoreSuite('PGlite (in memory)', async () => {
  const db = await openDatabase({ memory: true });
  return { db, teardown: () => db.close() };
});
