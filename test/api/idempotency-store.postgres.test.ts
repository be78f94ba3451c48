import { describeWithRealServices, openScratchDatabase } from '../support/databases';
import { idempotencyStoreSuite } from './idempotency-store.suite';

// The real Postgres server (a pool of 10: the concurrent claims really race), a fresh database for this file.
describeWithRealServices('Postgres server (TEST_REAL_SERVICES=1)', () => {
  idempotencyStoreSuite('Postgres', () => openScratchDatabase('idempotency'));
});
