import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Channels and contacts (issue 11, spec 2.10, docs/contracts.md "Channels" and "Contacts"): an agent's channels with
 * their plugin config and write-only secrets; contacts resolved from channel identities, their identities and
 * field history; conversations linked to their contact and channel; inbound message ids seen per channel
 * (redelivered webhooks are dropped) and the email Message-IDs that thread replies into one conversation.
 */
export const channelsContactsMigration: Migration = {
  name: '0035_channels_contacts',
  async up(db: Knex) {
    await db.schema.createTable('channels', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
      t.text('type').notNullable();
      t.text('label').notNullable();
      t.boolean('is_active').notNullable().defaultTo(true);
      t.jsonb('config').notNullable().defaultTo('{}');
      t.jsonb('secrets').notNullable().defaultTo('{}');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.index(['organization_id', 'agent_id', 'created_at']);
    });
    await db.schema.createTable('contacts', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.text('display_name');
      t.text('display_name_source');
      t.text('primary_phone');
      t.text('primary_email');
      t.text('source_channel').notNullable();
      t.text('status').notNullable().defaultTo('new');
      t.jsonb('attributes').notNullable().defaultTo('{}');
      t.timestamp('first_seen_at', { useTz: true }).notNullable();
      t.timestamp('last_seen_at', { useTz: true }).notNullable();
      t.index(['organization_id', 'last_seen_at']);
    });
    // One email and one phone per contact of an organization: a second writer is refused, never merged.
    await db.raw('CREATE UNIQUE INDEX contacts_org_email_idx ON contacts (organization_id, primary_email) WHERE primary_email IS NOT NULL');
    await db.raw('CREATE UNIQUE INDEX contacts_org_phone_idx ON contacts (organization_id, primary_phone) WHERE primary_phone IS NOT NULL');
    await db.raw('CREATE INDEX contacts_org_name_idx ON contacts (organization_id, lower(display_name))');
    await db.schema.createTable('contact_identities', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
      t.text('channel').notNullable();
      t.text('identifier').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.unique(['organization_id', 'channel', 'identifier']);
      t.index(['contact_id']);
    });
    await db.schema.createTable('contact_field_history', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('contact_id').notNullable().references('contacts.id').onDelete('CASCADE');
      t.text('field_key').notNullable();
      t.text('value');
      t.text('previous_value');
      t.text('source').notNullable();
      t.text('source_ref');
      t.text('rejected_reason');
      t.timestamp('recorded_at', { useTz: true }).notNullable();
      t.bigIncrements('seq');
      t.index(['contact_id', 'seq']);
    });
    await db.schema.alterTable('conversations', (t) => {
      t.uuid('contact_id').references('contacts.id').onDelete('SET NULL');
      t.uuid('channel_id').references('channels.id').onDelete('SET NULL');
      t.index(['organization_id', 'contact_id', 'updated_at']);
      t.index(['channel_id', 'contact_id', 'updated_at']);
    });
    await db.schema.createTable('channel_inbound_messages', (t) => {
      t.uuid('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
      t.text('external_id').notNullable();
      t.uuid('conversation_id').references('conversations.id').onDelete('CASCADE');
      t.timestamp('received_at', { useTz: true }).notNullable();
      t.primary(['channel_id', 'external_id']);
    });
  },
};
