import { type Database, openDatabase } from '../../adapters/postgres/database';
import { createScratchDatabase, serverHasPgvector } from './scratch-database';

export { createScratchDatabase, type ScratchDatabase } from './scratch-database';

/** Tests against the real services of this machine run only when TEST_REAL_SERVICES=1 (CI sets it). */
export const realServices = process.env.TEST_REAL_SERVICES === '1';
export const describeWithRealServices: jest.Describe = realServices ? describe : describe.skip;

/** The real Postgres server is in use and offers pgvector (see `serverHasPgvector`). */
export const pgvectorOnServer: boolean = realServices && serverHasPgvector();
if (realServices && !pgvectorOnServer)
  console.warn('The Postgres server has no pgvector (run bin/install-pgvector.sh): its pgvector suites are skipped.');

/** A fresh database opened through the platform's own adapter; `teardown` closes it and drops the database. */
export async function openScratchDatabase(label: string): Promise<{ db: Database; url: string; teardown(): Promise<void> }> {
  const scratch = await createScratchDatabase(label);
  const db = await openDatabase({ url: scratch.url });
  return {
    db,
    url: scratch.url,
    teardown: async () => {
      await db.close();
      await scratch.drop();
    },
  };
}
