import { openDatabase } from '../../adapters/postgres/database';
import { identityCacheConformance } from '../conformance/identity-cache.conformance';

identityCacheConformance('PGlite (in memory)', async () => {
  const db = await openDatabase({ memory: true });
  return { db, teardown: () => db.close() };
});
