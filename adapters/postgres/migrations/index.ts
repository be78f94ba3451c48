import type { MigrationSet } from '../migrator';
import { identityMigration } from './0001_identity';
import { agentsMigration } from './0002_agents';
import { modelsMigration } from './0005_models';

/** Relational schema: runs on PGlite and on any Postgres. Append new migrations; never edit applied ones. */
export const relationalMigrations: MigrationSet = {
  table: 'knex_migrations',
  migrations: [identityMigration, agentsMigration, modelsMigration].sort((a, b) => a.name.localeCompare(b.name)),
};
