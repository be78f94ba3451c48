import { openDatabase } from '../../adapters/postgres/database';
import { relationalStoreConformance } from '../conformance/relational-store.conformance';

relationalStoreConformance('PGlite (in memory)', async () => {
  const db = await openDatabase({ memory: true });
  return { db, teardown: () => db.close() };
});
