import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Contact search at 100k contacts (issue 11). The list's exact `total` of a common term (a tenth of the
 * contacts) rechecks every trigram match on the heap: on the wide contacts rows (attributes) that touched
 * every page of the table. `contact_search` holds only what the count and the search need (organization,
 * status, and one haystack `lower(name) <US> email <US> phone`, the unit separator keeping a term from matching
 * across two fields), so the count reads about a third of the pages and rechecks one short string per row.
 * A trigger keeps it in step with every write to contacts (inserts, name/email/phone/status updates); deletes
 * follow by cascade. `last_seen_at` stays out of it so that the per-message bump never touches the trigram
 * index. The three per-column trigram indexes of 0060 are then unused and only slowed writes: dropped.
 */
export const contactSearchTableMigration: Migration = {
  name: '0069_contact_search_table',
  async up(db: Knex) {
    // Same semantics as before: the name lowercased, e-mail (stored lowercased) and phone as they are.
    await db.raw(`
      create function contact_search_text(name text, email text, phone text) returns text
      language sql immutable parallel safe
      as $$ select lower(coalesce(name, '')) || chr(31) || coalesce(email, '') || chr(31) || coalesce(phone, '') $$`);
    await db.raw(`
      create table contact_search (
        contact_id uuid primary key references contacts(id) on delete cascade,
        organization_id uuid not null,
        status text not null,
        haystack text not null
      ) with (fillfactor = 90)`);
    await db.raw(`
      create function contact_search_sync() returns trigger language plpgsql as $$
      begin
        insert into contact_search (contact_id, organization_id, status, haystack)
        values (new.id, new.organization_id, new.status,
                contact_search_text(new.display_name, new.primary_email, new.primary_phone))
        on conflict (contact_id) do update set status = excluded.status, haystack = excluded.haystack
          where (contact_search.status, contact_search.haystack) is distinct from (excluded.status, excluded.haystack);
        return null;
      end $$`);
    await db.raw(`
      create trigger contact_search_sync after insert or update of display_name, primary_email, primary_phone, status
      on contacts for each row execute function contact_search_sync()`);
    await db.raw(`
      insert into contact_search (contact_id, organization_id, status, haystack)
      select id, organization_id, status, contact_search_text(display_name, primary_email, primary_phone) from contacts`);
    // No fast-update pending list, as in 0060: PGlite runs no autovacuum to flush it.
    await db.raw('create index contact_search_trgm on contact_search using gin (haystack gin_trgm_ops) with (fastupdate = off)');
    await db.raw('create index contact_search_org on contact_search (organization_id)');
    await db.raw('drop index if exists contacts_name_trgm');
    await db.raw('drop index if exists contacts_email_trgm');
    await db.raw('drop index if exists contacts_phone_trgm');
  },
};
