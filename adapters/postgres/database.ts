import { mkdirSync } from 'node:fs';
import { join } from 'node:path';

import knex, { type Knex } from 'knex';
import pg from 'pg';

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
}

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if (options.url) {
    const db = knex({ client: 'pg', connection: options.url, pool: { min: 0, max: options.poolMax ?? 10 } });
    return { kind: 'postgres', knex: db, close: () => db.destroy() };
  }
  return openEmbedded(options);
}

/**
 * PGlite (Postgres 18 + pgvector in WASM) served over the Postgres wire protocol on a private socket, so the
 * embedded store runs the very same pg driver and SQL as a real server. PGlite is single-connection, hence
 * a pool of one.
 */
async function openEmbedded(options: DatabaseOptions): Promise<Database> {
  const { PGlite } = await import('@electric-sql/pglite');
  const { vector } = await import('@electric-sql/pglite-pgvector');
  const { PGLiteSocketServer } = await import('@electric-sql/pglite-socket');
  let dataDir: string | undefined;
  if (!options.memory) {
    dataDir = join(options.dataDir ?? './data', 'pglite');
    mkdirSync(dataDir, { recursive: true });
  }
  const lite = await PGlite.create({ dataDir, extensions: { vector } });
  const server = new PGLiteSocketServer({ db: lite, port: 0, host: '127.0.0.1' });
  await server.start();
  const address = (server as unknown as { server?: { address(): { port: number } } }).server?.address();
  if (!address) throw new Error('PGlite socket server did not report its port');
  const db = knex({
    client: 'pg',
    connection: { host: '127.0.0.1', port: address.port, user: 'postgres', database: 'postgres' },
    pool: { min: 0, max: 1 },
  });
  return {
    kind: 'pglite',
    knex: db,
    close: async () => {
      await db.destroy();
      await server.stop();
      await lite.close();
    },
  };
}
