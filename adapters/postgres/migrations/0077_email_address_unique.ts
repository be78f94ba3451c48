import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * An inbound email address belongs to at most one active email channel platform-wide (docs/contracts.md "Email channel
 * addresses"): a partial unique index on the lowercased address of active email channels. Addresses claimed
 * twice before it: the earliest created active channel keeps the address, every later one is deactivated (its
 * organization re-activates it once the address is free, or moves it to another address).
 *
 * `channel_address_verifications` holds the pending proof of a chosen address outside EMAIL_INBOUND_DOMAIN: the
 * digest of the code mailed to it, the attempts made and when it expires. A channel with a row here is inactive
 * until the code is given back (`POST /api/bots/:id/channels/:channelId/verify`).
 */
export const emailAddressUniqueMigration: Migration = {
  name: '0077_email_address_unique',
  async up(db: Knex) {
    await db.raw(`
      update channels c set is_active = false, updated_at = now()
      where c.type = 'email' and c.is_active and c.config->>'address' is not null
        and exists (
          select 1 from channels e
          where e.type = 'email' and e.is_active and e.id <> c.id
            and lower(e.config->>'address') = lower(c.config->>'address')
            and (e.created_at < c.created_at or (e.created_at = c.created_at and e.id < c.id))
        )`);
    await db.raw(
      "create unique index channels_email_address_unique on channels (lower(config->>'address')) where is_active and type = 'email'",
    );
    await db.schema.createTable('channel_address_verifications', (t) => {
      t.uuid('channel_id').primary().references('channels.id').onDelete('CASCADE');
      t.text('address').notNullable();
      t.text('code_hash').notNullable();
      t.integer('attempts').notNullable().defaultTo(0);
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
    });
  },
};
