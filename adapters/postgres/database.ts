import { mkdirSync } from 'node:fs';
import { resolve } from 'node:path';

import knex, { type Knex } from 'knex';
import pg from 'pg';

import { claimDataFolder, type DataFolderClaim } from './embedded/data-folder-claim';
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

/** At most 2 s for a connect to a Postgres server, and less than the wait for a connection (at least 100 ms). */
const connectTimeoutMs = (queueTimeoutMs: number) => Math.max(100, Math.min(2000, Math.floor(queueTimeoutMs * 0.6)));

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
    const queueTimeoutMs = options.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS;
    const db = knex({
      client: 'pg',
      connection: {
        connectionString: options.url,
        // A server that does not answer (a host gone, a dropped route) fails the connect before the request's
        // wait for a connection ends, so that the wait fails as "unavailable", not "busy" (error-mapper.ts).
        // A refused or reset connect fails at once anyway; the pool opens a new connection on the next
        // statement, so the platform recovers by itself once the database is back.
        connectionTimeoutMillis: connectTimeoutMs(queueTimeoutMs),
        // Dead peers of idle pooled connections are noticed by the kernel too, not only at their next statement.
        keepAlive: true,
      },
      pool: { min: 0, max: options.poolMax ?? 10 },
      acquireConnectionTimeout: queueTimeoutMs,
    });
    explainTimedOutWaits(db);
    return { kind: 'postgres', knex: db, close: () => db.destroy() };
  }
  return openEmbedded(options);
}

/**
 * A statement's wait for a connection that timed out (knex's KnexTimeoutError) is ambiguous: every connection
 * busy on a database that answers (overload: 503 DATABASE_BUSY), or no connection could be opened (the
 * database away: 503 DATABASE_UNAVAILABLE). When a connect of the pool failed during the wait, the timeout's
 * `cause` becomes that failure (ECONNREFUSED, node-postgres's connect timeout...), which isDatabaseUnavailable
 * (database-errors.ts) reads; otherwise it stays tarn's "operation timed out for an unknown reason" (busy).
 * knex offers no hook for this: its client's acquireConnection, which every query and transaction calls, is
 * wrapped on this instance, and the pool's (tarn's) `createFail` event remembers the last failed connect.
 */
function explainTimedOutWaits(db: Knex): void {
  const client = db.client as {
    pool?: { on?(event: 'createFail', listener: (eventId: number, error: unknown) => void): unknown };
    acquireConnection?: () => Promise<unknown>;
  };
  const acquire = client.acquireConnection;
  if (typeof client.pool?.on !== 'function' || typeof acquire !== 'function') return;
  let lastFailedConnect: { at: number; error: unknown } | null = null;
  client.pool.on('createFail', (_eventId, error) => {
    lastFailedConnect = { at: Date.now(), error };
  });
  client.acquireConnection = async function acquireConnection() {
    const waitingSince = Date.now();
    try {
      return await acquire.call(client);
    } catch (error) {
      const failed = lastFailedConnect;
      if (failed && failed.at >= waitingSince && (error as { name?: unknown } | null)?.name === 'KnexTimeoutError') {
        (error as { cause?: unknown }).cause = failed.error;
      }
      throw error;
    }
  };
}

/**
 * PGlite (Postgres 18 + pgvector in WASM) in a worker thread, spoken to over the Postgres wire protocol on
 * in-process streams: the embedded store runs the very same pg driver and SQL as a real server, nothing
 * listens on a port or a socket file, and the database's work leaves the event loop that serves requests.
 * PGlite has one session: the pool's connections are multiplexed on it (see embedded/pglite-worker.mjs).
 * On disk the data folder is claimed for this process first (embedded/data-folder-claim.ts): every opener (the
 * roles, `migrate`, the admin commands) comes through here, and a second one fails with DataFolderInUseError.
 */
async function openEmbedded(options: DatabaseOptions): Promise<Database> {
  let dataDir: string | undefined;
  let claim: DataFolderClaim | undefined;
  if (!options.memory) {
    const folder = resolve(options.dataDir ?? './data');
    dataDir = resolve(folder, 'pglite');
    mkdirSync(dataDir, { recursive: true, mode: 0o700 });
    claim = claimDataFolder(folder);
  }
  const queueTimeoutMs = options.queueTimeoutMs ?? DEFAULT_QUEUE_TIMEOUT_MS;
  let thread: PgliteThread;
  try {
    thread = await PgliteThread.start({ dataDir, queueTimeoutMs, nice: options.threadNice ?? DEFAULT_THREAD_NICE });
  } catch (error) {
    claim?.release();
    throw error;
  }
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
    claim?.release();
    throw error;
  }
  return {
    kind: 'pglite',
    knex: db,
    close: async () => {
      try {
        await db.destroy();
        await thread.close();
      } finally {
        // Only once the database thread has written its last page.
        claim?.release();
      }
    },
  };
}
