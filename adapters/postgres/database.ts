import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

import knex, { type Knex } from 'knex';
import pg from 'pg';

import { PgliteThread } from './embedded/pglite-thread';

// Counts and sums come back as numbers, not strings: they never exceed 2^53 here.
pg.types.setTypeParser(20, (v) => Number.parseInt(v, 10));
pg.types.setTypeParser(1700, (v) => Number.parseFloat(v));

export interface Database {
  readonly kind: 'pglite' | 'postgres';
  readonly knex: Knex;
  close(): Promise<void>;
}

export interface DatabaseOptions {
  /** External Postgres; when absent an embedded PGlite persists under `dataDir`. */
  url?: string;
  dataDir?: string;
  /** In-memory PGlite (tests). */
  memory?: boolean;
  poolMax?: number;
  /** How long a statement waits for a connection (or the embedded session) before failing with 503. */
  queueTimeoutMs?: number;
  /** Embedded only: the nice value of the database thread (see PgliteThreadOptions). */
  threadNice?: number;
}

/** Below the request loop, above the heavy-work threads (HEAVY_WORK_NICE). */
const DEFAULT_THREAD_NICE = 10;

const DEFAULT_QUEUE_TIMEOUT_MS = 5000;

/** The database options of the platform's configuration (DATABASE_URL, DATA_DIR, DATABASE_POOL_MAX...). */
export function databaseOptions(config: {
  databaseUrl?: string;
  dataDir: string;
  settings: Readonly<Record<string, unknown>>;
}): DatabaseOptions {
  const int = (key: string) => (typeof config.settings[key] === 'number' ? (config.settings[key] as number) : undefined);
  return {
    url: config.databaseUrl,
    dataDir: config.dataDir,
    poolMax: int('DATABASE_POOL_MAX'),
    queueTimeoutMs: int('DATABASE_QUEUE_TIMEOUT_MS'),
    threadNice: int('DATABASE_THREAD_NICE'),
  };
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const db = knex({
      client: 'pg',
      connection: options.url,
      pool: { min: 0, max: options.poolMax ?? 10 },
      acquireConnectionTimeout: options.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS,
    });
    return { kind: 'postgres', knex: db, close: () => db.destroy() };
  }
  return openEmbedded(options);
}

/**
 * PGlite (Postgres 18 + pgvector in WASM) in a worker thread, spoken to over the Postgres wire protocol on
 * in-process streams: the embedded store runs the very same pg driver and SQL as a real server, nothing
 * listens on a port or a socket file, and the database's work leaves the event loop that serves requests.
 * PGlite has one session: the pool's connections are multiplexed on it (see embedded/pglite-worker.mjs).
 */
async function openEmbedded(options: DatabaseOptions): Promise<Database> {
  let dataDir: string | undefined;
  if (!options.memory) {
    dataDir = resolve(options.dataDir ?? './data', 'pglite');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
  }
  const queueTimeoutMs = options.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS;
  const thread = await PgliteThread.start({ dataDir, queueTimeoutMs, nice: options.threadNice ?? DEFAULT_THREAD_NICE });
  const db = knex({
    client: 'pg',
    connection: { user: 'postgres', database: 'postgres', stream: () => thread.connect() } as Knex.PgConnectionConfig,
    pool: { min: 0, max: options.poolMax ?? 4 },
    acquireConnectionTimeout: queueTimeoutMs,
  });
  // The first connection loads the driver's dialect code (about a second): at boot, outside the pool's wait bound.
  try {
    const warm = (await db.client.acquireRawConnection()) as pg.Client;
    await warm.query('select 1');
    await db.client.destroyRawConnection(warm);
  } catch (error) {
    await db.destroy();
    await thread.close();
    throw error;
  }
  return {
    kind: 'pglite',
    knex: db,
    close: async () => {
      await db.destroy();
      await thread.close();
    },
  };
}
