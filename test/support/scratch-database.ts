/**
 * Scratch databases on the machine's real Postgres server, for tests and benchmarks alike (no jest globals here).
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';

import pg from 'pg';

export const ADMIN_URL = process.env.TEST_POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

export interface ScratchDatabase {
  url: string;
  name: string;
  drop(): Promise<void>;
}

/** Runs `work` on a connection to the server's maintenance database. */
export async function admin<T>(work: (client: pg.Client) => Promise<T>): Promise<T> {
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

let pgvector: boolean | undefined;

/**
 * Whether the server offers pgvector (`bin/install-pgvector.sh` builds the vendored one; .ci/run runs it). Asked
 * once and synchronously (psql), so a suite can choose between describe and describe.skip at load.
 */
export function serverHasPgvector(): boolean {
  if (pgvector !== undefined) return pgvector;
  try {
    const out = execFileSync('psql', [ADMIN_URL, '-Atc', "SELECT count(*) FROM pg_available_extensions WHERE name = 'vector'"], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
      timeout: 10_000,
    });
    pgvector = out.trim() === '1';
  } catch {
    pgvector = false;
  }
  return pgvector;
}
