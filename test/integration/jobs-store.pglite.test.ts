import { openDatabase } from '../../adapters/postgres/database';
import { jobsStoreConformance } from '../conformance/jobs-store.conformance';

jobsStoreConformance('PGlite (in memory)', async () => {
  const db = await openDatabase({ memory: true });
  return { db, teardown: () => db.close() };
});
