import type { Knex } from 'knex';
import pg from 'pg';

export interface Migration {
  name: string;
  up(db: Knex): Promise<void>;
  down?(db: Knex): Promise<void>;
}

/** A versioned, ordered list of migrations with its own bookkeeping table. */
export interface MigrationSet {
  table: string;
  migrations: Migration[];
}

class ListSource implements Knex.MigrationSource<Migration> {
  constructor(private readonly migrations: Migration[]) {}
  async getMigrations() {
    return this.migrations;
  }
  getMigrationName(m: Migration) {
    return m.name;
  }
  async getMigration(m: Migration) {
    return { up: (db: Knex) => m.up(db), down: (db: Knex) => (m.down ? m.down(db) : Promise.resolve()) };
  }
}

/** The advisory lock every process takes before migrating (any value no other lock of the platform uses). */
const MIGRATION_LOCK = 0x61706d67;

/**
 * Applies the sets' pending migrations. On a Postgres server the roles start side by side (api and worker both
 * open the vector index, which migrates its own set), and knex creates a bookkeeping table without guarding the
 * race: two processes creating `vector_migrations` at once made one fail at boot. So the whole run holds a
 * session advisory lock, on a connection of its own outside the pool (a pool of one must stay free for the
 * migrations). The embedded store is one process's: nothing to race with.
 */
export function migrate(db: Knex, sets: MigrationSet[]): Promise<string[]> {
  return withMigrationLock(db, () => migrateUnlocked(db, sets));
}

/**
 * Runs `work` holding the migration lock (see `migrate`); for schema work that must not race across processes
 * and is not a migration of a set (enabling an extension). Not re-entrant: `work` must not call `migrate`.
 */
export async function withMigrationLock<T>(db: Knex, work: () => Promise<T>): Promise<T> {
  const server = serverConnection((db.client as { config: Knex.Config }).config.connection);
  if (!server) return work();
  const lock = new pg.Client(server);
  await lock.connect();
  try {
    await lock.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    return await work();
  } finally {
    // ending the session releases the lock too, should the unlock itself fail
    await lock.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]).catch(() => undefined);
    await lock.end();
  }
}

/** The server's connection settings; null for the embedded store (its connections are streams to its thread). */
export function serverConnection(connection: unknown): pg.ClientConfig | null {
  if (typeof connection === 'string') return { connectionString: connection };
  if (!connection || typeof connection !== 'object' || 'stream' in connection) return null;
  return connection as pg.ClientConfig;
}

/** `migrate` without the lock, for callers already holding it. */
export async function migrateUnlocked(db: Knex, sets: MigrationSet[]): Promise<string[]> {
  const applied: string[] = [];
  for (const set of sets) {
    const [, names] = (await db.migrate.latest({ migrationSource: new ListSource(set.migrations), tableName: set.table })) as [
      number,
      string[],
    ];
    applied.push(...names);
  }
  return applied;
}
