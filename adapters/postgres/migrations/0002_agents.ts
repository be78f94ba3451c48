import type { Knex } from 'knex';

import type { Migration } from '../migrator';

export const agentsMigration: Migration = {
  name: '0002_agents',
  async up(db: Knex) {
    await db.schema.createTable('agents', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.string('name', 255).notNullable();
      t.text('description').notNullable().defaultTo('');
      t.text('model').notNullable();
      t.text('system_prompt');
      t.boolean('is_draft').notNullable().defaultTo(false);
      t.text('status').notNullable().defaultTo('draft');
      t.boolean('streaming_enabled').notNullable().defaultTo(true);
      t.boolean('file_uploads_enabled').notNullable().defaultTo(false);
      t.boolean('voice_enabled').notNullable().defaultTo(false);
      t.jsonb('voice_settings');
      t.jsonb('multimodal_config');
      t.jsonb('tools').notNullable().defaultTo('[]');
      t.jsonb('template_variables').notNullable().defaultTo('[]');
      t.text('slug').unique();
      t.jsonb('distribution');
      t.text('review_feedback');
      t.uuid('created_by').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.timestamp('deleted_at', { useTz: true });
      t.index(['organization_id', 'created_at']);
    });
    await db.schema.createTable('agent_grants', (t) => {
      t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
      t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
      t.specificType('permissions', 'text[]').notNullable();
      t.primary(['agent_id', 'user_id']);
    });
  },
};
