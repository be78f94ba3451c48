import { openDatabase } from '../../adapters/postgres/database';
import { agentStoreSuite } from './agent-store.suite';

agentStoreSuite('PGlite (in memory)', async () => {
  const db = await openDatabase({ memory: true });
  return { db, teardown: () => db.close() };
});
