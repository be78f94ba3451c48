import { identityCacheConformance } from '../conformance/identity-cache.conformance';
import { describeWithRealServices, openScratchDatabase } from '../support/databases';

// The real Postgres server of this machine, a fresh database for this file, dropped afterwards.
describeWithRealServices('Postgres server (TEST_REAL_SERVICES=1)', () => {
  identityCacheConformance('Postgres', () => openScratchDatabase('identity_cache'));
});
