import { analyticsStoreConformance } from '../conformance/analytics-store.conformance';
import { describeWithRealServices, openScratchDatabase } from '../support/databases';

describeWithRealServices('Postgres server', () => {
  analyticsStoreConformance('Postgres 127.0.0.1:5432', async () => {
    const { db, teardown } = await openScratchDatabase('analytics');
    return { db, teardown };
  });
});
