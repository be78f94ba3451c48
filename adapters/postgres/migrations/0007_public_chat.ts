import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Public chat: attachments uploaded by anonymous visitors (spec 2.9, 4.5). The access token is stored only as
 * its SHA-256 hash; the extracted text is what chat gives the model. Conversations already carry
 * `anonymous_id` and `title` (0004) and the visitor listing index (0006).
 */
export const publicChatMigration: Migration = {
  name: '0007_public_chat',
  async up(db: Knex) {
    await db.schema.createTable('attachments', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
      t.uuid('anonymous_id');
      t.text('token_hash').notNullable();
      t.text('file_type').notNullable();
      t.text('original_filename').notNullable();
      t.bigInteger('file_size_bytes').notNullable();
      t.text('content_type').notNullable();
      t.text('processing_status').notNullable().defaultTo('pending');
      t.text('blob_key').notNullable();
      t.text('extracted_text');
      t.text('error');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.timestamp('processed_at', { useTz: true });
      t.index(['agent_id', 'anonymous_id', 'created_at']);
      t.index(['organization_id', 'created_at']);
    });
  },
};
