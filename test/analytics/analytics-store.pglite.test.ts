import { openDatabase } from '../../adapters/postgres/database';
import { analyticsStoreConformance } from '../conformance/analytics-store.conformance';

analyticsStoreConformance('PGlite (in memory)', async () => {
  const db = await openDatabase({ memory: true });
  return { db, teardown: () => db.close() };
});
