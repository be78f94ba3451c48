import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Knowledge graph on the relational store (GRAPH_STORE=postgres): entities, their lookup keys (folded
 * canonical name and aliases, unique per knowledge base, so entity resolution is one indexed lookup),
 * mentions with chunk-level provenance (mentionCount and documentIds are derived from them, so they stay
 * true after every change), typed weighted relationships per document, pinned entities, and optimisation
 * suggestions. No foreign keys to knowledge bases or documents: the graph store is a port of its own and
 * the knowledge use cases delete its contributions explicitly.
 */
export const graphMigration: Migration = {
  name: '0030_graph',
  async up(db: Knex) {
    await db.schema.createTable('graph_entities', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable();
      t.uuid('knowledge_base_id').notNullable();
      t.text('name').notNullable();
      t.text('type').notNullable();
      t.jsonb('aliases').notNullable().defaultTo('[]');
      t.text('description');
      t.float('confidence').notNullable().defaultTo(0.5);
      t.boolean('hidden').notNullable().defaultTo(false);
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.index(['organization_id', 'knowledge_base_id', 'type']);
      t.index(['knowledge_base_id', 'name']);
    });
    await db.schema.createTable('graph_entity_keys', (t) => {
      t.uuid('knowledge_base_id').notNullable();
      t.text('key').notNullable();
      t.uuid('entity_id').notNullable().references('graph_entities.id').onDelete('CASCADE');
      t.primary(['knowledge_base_id', 'key']);
      t.index(['entity_id']);
    });
    await db.raw('CREATE INDEX graph_entity_keys_prefix ON graph_entity_keys (knowledge_base_id, key text_pattern_ops)');
    await db.schema.createTable('graph_mentions', (t) => {
      t.uuid('entity_id').notNullable().references('graph_entities.id').onDelete('CASCADE');
      t.uuid('knowledge_base_id').notNullable();
      t.uuid('document_id').notNullable();
      t.integer('chunk_index').notNullable();
      t.integer('count').notNullable().defaultTo(1);
      t.primary(['entity_id', 'document_id', 'chunk_index']);
      t.index(['knowledge_base_id', 'document_id']);
    });
    await db.schema.createTable('graph_relationships', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable();
      t.uuid('knowledge_base_id').notNullable();
      t.uuid('source_entity_id').notNullable().references('graph_entities.id').onDelete('CASCADE');
      t.uuid('target_entity_id').notNullable().references('graph_entities.id').onDelete('CASCADE');
      t.text('type').notNullable();
      t.float('weight').notNullable();
      t.uuid('document_id').notNullable();
      t.integer('chunk_index').notNullable();
      t.text('evidence');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.unique(['source_entity_id', 'target_entity_id', 'type', 'document_id']);
      t.index(['target_entity_id']);
      t.index(['knowledge_base_id', 'document_id']);
    });
    await db.schema.createTable('graph_pinned_entities', (t) => {
      t.uuid('knowledge_base_id').primary();
      t.uuid('organization_id').notNullable();
      t.jsonb('entities').notNullable().defaultTo('[]');
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
    await db.schema.createTable('graph_suggestions', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable();
      t.uuid('knowledge_base_id').notNullable();
      t.text('type').notNullable();
      t.text('status').notNullable();
      t.jsonb('entity_ids').notNullable().defaultTo('[]');
      t.jsonb('payload').notNullable().defaultTo('{}');
      t.text('reason').notNullable();
      t.float('confidence').notNullable();
      t.text('resolved_by');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.index(['knowledge_base_id', 'status', 'type']);
    });
  },
};
