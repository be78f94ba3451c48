import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Contact search (issue 11) is a case-insensitive substring match on name, e-mail and phone: trigram GIN
 * indexes let `like '%term%'` find the few matching rows among 100k instead of scanning them all.
 * pg_trgm is a trusted extension (Postgres 13+) and ships with PGlite's contrib set. No fast-update pending
 * list: PGlite runs no autovacuum to flush it, and a long pending list makes the planner avoid the index.
 */
export const contactSearchTrigramsMigration: Migration = {
  name: '0060_contact_search_trigrams',
  async up(db: Knex) {
    await db.raw('create extension if not exists pg_trgm');
    await db.raw('create index contacts_name_trgm on contacts using gin (lower(display_name) gin_trgm_ops) with (fastupdate = off)');
    await db.raw('create index contacts_email_trgm on contacts using gin (primary_email gin_trgm_ops) with (fastupdate = off)');
    await db.raw('create index contacts_phone_trgm on contacts using gin (primary_phone gin_trgm_ops) with (fastupdate = off)');
  },
};
