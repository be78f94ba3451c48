import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

import pg from 'pg';

import { type Database, openDatabase } from '../../adapters/postgres/database';

/** Tests against the real services of this machine run only when TEST_REAL_SERVICES=1 (CI sets it). */
export const realServices = process.env.TEST_REAL_SERVICES === '1';
export const describeWithRealServices: jest.Describe = realServices ? describe : describe.skip;

const ADMIN_URL = process.env.TEST_POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

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

export interface ScratchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: ADMIN_URL });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh, empty database on the real Postgres server (one per test file), dropped afterwards. */
export async function createScratchDatabase(label: string): Promise<ScratchDatabase> {
  const name = `ap_test_${label.replace(/[^a-z0-9]/gi, '_').toLowerCase()}_${randomBytes(5).toString('hex')}`;
  await admin((c) => c.query(`CREATE DATABASE ${name}`));
  const url = new URL(ADMIN_URL);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    name,
    drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)).then(() => undefined),
  };
}

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
