import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Chat additions to the conversations and messages tables of 0004: sensitive variables (usable in prompts,
 * never returned), free-form message metadata (finish reason, attachments, welcome flag), and the index
 * behind "my conversations" listings.
 */
export const chatMigration: Migration = {
  name: '0006_chat',
  async up(db: Knex) {
    await db.schema.alterTable('conversations', (t) => {
      t.jsonb('sensitive_variables').notNullable().defaultTo('{}');
      t.index(['organization_id', 'user_id', 'updated_at']);
      t.index(['agent_id', 'anonymous_id', 'updated_at']);
    });
    await db.schema.alterTable('messages', (t) => {
      t.jsonb('metadata').notNullable().defaultTo('{}');
    });
  },
};
