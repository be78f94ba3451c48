import type { Knex } from 'knex';

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

export async function migrate(db: Knex, sets: MigrationSet[]): Promise<string[]> {
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
