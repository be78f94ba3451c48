import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Knowledge bases, their documents, sources (with per-item content hashes), agent links and the search
 * log. Chunks and vectors live in the vector index (its own migration set), not here.
 */
export const knowledgeMigration: Migration = {
  name: '0003_knowledge',
  async up(db: Knex) {
    await db.schema.createTable('knowledge_bases', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.string('name', 255).notNullable();
      t.text('description').notNullable().defaultTo('');
      t.text('visibility').notNullable().defaultTo('private');
      t.jsonb('settings').notNullable().defaultTo('{}');
      t.uuid('created_by');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.index(['organization_id', 'created_at']);
    });
    // Explicit per-user permissions on one knowledge base (how a viewer gets edit), like agent_grants.
    await db.schema.createTable('knowledge_base_grants', (t) => {
      t.uuid('knowledge_base_id').notNullable().references('knowledge_bases.id').onDelete('CASCADE');
      t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
      t.specificType('permissions', 'text[]').notNullable();
      t.primary(['knowledge_base_id', 'user_id']);
    });
    await db.schema.createTable('agent_knowledge_bases', (t) => {
      t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
      t.uuid('knowledge_base_id').notNullable().references('knowledge_bases.id').onDelete('CASCADE');
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.jsonb('permissions').notNullable().defaultTo('{}');
      t.integer('priority').notNullable().defaultTo(0);
      t.uuid('linked_by');
      t.timestamp('linked_at', { useTz: true }).notNullable();
      t.primary(['agent_id', 'knowledge_base_id']);
      t.index(['knowledge_base_id']);
    });
    await db.schema.createTable('sources', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('knowledge_base_id').notNullable().references('knowledge_bases.id').onDelete('CASCADE');
      t.text('url').notNullable();
      t.text('source_type').notNullable().defaultTo('url');
      t.jsonb('options').notNullable().defaultTo('{}');
      t.boolean('sync_enabled').notNullable().defaultTo(false);
      t.integer('sync_frequency_minutes').notNullable().defaultTo(60);
      t.timestamp('last_synced_at', { useTz: true });
      t.timestamp('next_sync_at', { useTz: true });
      t.text('last_sync_error');
      t.text('sync_health').notNullable().defaultTo('pending');
      t.uuid('created_by');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.index(['knowledge_base_id']);
      t.index(['sync_enabled', 'next_sync_at']);
    });
    await db.schema.createTable('knowledge_documents', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('knowledge_base_id').notNullable().references('knowledge_bases.id').onDelete('CASCADE');
      t.text('title').notNullable();
      t.text('mime_type').notNullable();
      t.bigInteger('file_size_bytes').notNullable().defaultTo(0);
      t.text('processing_status').notNullable().defaultTo('pending');
      t.text('error');
      t.integer('chunk_count').notNullable().defaultTo(0);
      t.text('blob_key');
      t.text('content_hash');
      t.uuid('source_id').references('sources.id').onDelete('SET NULL');
      t.text('source_item_key');
      t.text('summary');
      t.jsonb('topics').notNullable().defaultTo('[]');
      t.jsonb('metadata').notNullable().defaultTo('{}');
      t.text('job_id');
      t.uuid('created_by');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.timestamp('processed_at', { useTz: true });
      t.index(['knowledge_base_id', 'created_at']);
      t.index(['source_id', 'source_item_key']);
    });
    await db.schema.createTable('source_items', (t) => {
      t.uuid('source_id').notNullable().references('sources.id').onDelete('CASCADE');
      t.text('item_key').notNullable();
      t.text('content_hash').notNullable();
      t.uuid('document_id').references('knowledge_documents.id').onDelete('SET NULL');
      t.primary(['source_id', 'item_key']);
    });
    await db.schema.createTable('knowledge_search_log', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('knowledge_base_id').notNullable().references('knowledge_bases.id').onDelete('CASCADE');
      t.text('query').notNullable();
      t.text('source').notNullable().defaultTo('manual');
      t.uuid('user_id');
      t.uuid('agent_id');
      t.uuid('conversation_id');
      t.uuid('message_id');
      t.integer('result_count').notNullable().defaultTo(0);
      t.double('top_score');
      t.integer('duration_ms').notNullable().defaultTo(0);
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.index(['knowledge_base_id', 'created_at']);
    });
  },
};
