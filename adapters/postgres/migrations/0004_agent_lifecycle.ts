import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Agent lifecycle: workflow timestamps on agents, agent version snapshots, prompt configuration (draft
 * sections, immutable vX.Y versions with their items, the live pointer), and the conversations and messages
 * tables the chat area writes (the agents area reads usage and conversation counts from them).
 * `instance_ref` is '' for sections that are not instanced, so it can take part in primary keys.
 */
export const agentLifecycleMigration: Migration = {
  name: '0004_agent_lifecycle',
  async up(db: Knex) {
    await db.schema.alterTable('agents', (t) => {
      t.timestamp('submitted_at', { useTz: true });
      t.uuid('reviewed_by');
      t.timestamp('reviewed_at', { useTz: true });
      t.timestamp('published_at', { useTz: true });
    });
    await db.raw(
      `CREATE INDEX agents_marketplace_idx ON agents (published_at DESC) WHERE slug IS NOT NULL AND deleted_at IS NULL AND status = 'published'`,
    );

    await db.schema.createTable('agent_versions', (t) => {
      t.uuid('id').primary();
      t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.integer('version').notNullable();
      t.jsonb('changes').notNullable();
      t.text('notes').notNullable().defaultTo('');
      t.uuid('created_by').references('users.id').onDelete('SET NULL');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.unique(['agent_id', 'version']);
    });

    await db.schema.createTable('prompt_draft_sections', (t) => {
      t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.text('prompt_type').notNullable();
      t.text('instance_ref').notNullable().defaultTo('');
      t.text('mode').notNullable();
      t.text('content');
      t.text('prompt');
      t.uuid('updated_by').references('users.id').onDelete('SET NULL');
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.primary(['agent_id', 'prompt_type', 'instance_ref']);
    });
    await db.schema.createTable('prompt_config_versions', (t) => {
      t.uuid('id').primary();
      t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.integer('version_major').notNullable();
      t.integer('version_minor').notNullable();
      t.text('label');
      t.uuid('created_by').references('users.id').onDelete('SET NULL');
      t.timestamp('created_at', { useTz: true }).notNullable();
      // Concurrent saves are serialised by a row lock on the agent; this is the safety net.
      t.unique(['agent_id', 'version_major', 'version_minor']);
    });
    await db.schema.createTable('prompt_config_version_items', (t) => {
      t.uuid('version_id').notNullable().references('prompt_config_versions.id').onDelete('CASCADE');
      t.text('prompt_type').notNullable();
      t.text('instance_ref').notNullable().defaultTo('');
      t.text('mode').notNullable();
      t.text('content');
      t.text('prompt');
      t.primary(['version_id', 'prompt_type', 'instance_ref']);
    });
    await db.schema.createTable('prompt_live_pointers', (t) => {
      t.uuid('agent_id').primary().references('agents.id').onDelete('CASCADE');
      t.uuid('version_id').notNullable().references('prompt_config_versions.id').onDelete('CASCADE');
      t.timestamp('published_at', { useTz: true }).notNullable();
      t.uuid('published_by').references('users.id').onDelete('SET NULL');
    });

    // Written by the chat area; agents read usage (spec 4.2) and conversation counts (delete-impact) here.
    await db.schema.createTable('conversations', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
      t.uuid('user_id').references('users.id').onDelete('SET NULL');
      t.uuid('anonymous_id');
      t.text('platform').notNullable().defaultTo('web');
      t.text('title');
      t.jsonb('variables').notNullable().defaultTo('{}');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.timestamp('deleted_at', { useTz: true });
      t.index(['agent_id', 'created_at']);
      t.index(['organization_id', 'created_at']);
      t.index(['anonymous_id']);
    });
    await db.schema.createTable('messages', (t) => {
      t.uuid('id').primary();
      t.uuid('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.text('role').notNullable();
      t.text('content').notNullable();
      t.jsonb('sources').notNullable().defaultTo('[]');
      t.integer('prompt_tokens').notNullable().defaultTo(0);
      t.integer('completion_tokens').notNullable().defaultTo(0);
      t.decimal('cost_usd', 18, 8).notNullable().defaultTo(0);
      t.text('model');
      t.integer('response_ms');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.index(['conversation_id', 'created_at']);
      t.index(['organization_id', 'created_at']);
    });
  },
};
