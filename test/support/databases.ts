import { execFileSync } from 'node:child_process';

import { type Database, openDatabase } from '../../adapters/postgres/database';
import { ADMIN_URL, createScratchDatabase } from './scratch-database';

export { createScratchDatabase, type ScratchDatabase } from './scratch-database';

/** Tests against the real services of this machine run only when TEST_REAL_SERVICES=1 (CI sets it). */
export const realServices = process.env.TEST_REAL_SERVICES === '1';
export const describeWithRealServices: jest.Describe = realServices ? describe : describe.skip;

/**
 * Whether the real Postgres server offers pgvector (`bin/install-pgvector.sh` builds the vendored one; .ci/run
 * runs it). Asked once, synchronously, so a suite can decide between describe and describe.skip.
 */
export const pgvectorOnServer: boolean = (() => {
  if (!realServices) return false;
  try {
    const out = execFileSync('psql', [ADMIN_URL, '-Atc', "SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'"], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    });
    return out.trim() === '1';
  } catch {
    return false;
  }
})();
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
