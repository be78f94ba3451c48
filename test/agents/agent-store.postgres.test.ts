import { describeWithRealServices, openScratchDatabase } from '../support/databases';
import { agentStoreSuite } from './agent-store.suite';

// The real Postgres server (pool of 10: saves really run in parallel), a fresh database for this file.
describeWithRealServices('Postgres server (TEST_REAL_SERVICES=1)', () => {
  agentStoreSuite('Postgres', () => openScratchDatabase('agents'));
});
