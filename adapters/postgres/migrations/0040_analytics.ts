import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Analytics (issue 12): what every chat turn and search retrieved (one row per searched knowledge base, one per
 * returned chunk), message feedback, the hourly rollup of conversations and messages a background job keeps
 * (queries read it for whole hours and the raw tables for the rest), and the learning prior of chunks.
 */
export const analyticsMigration: Migration = {
  name: '0040_analytics',
  async up(db: Knex) {
    await db.schema.createTable('analytics_kb_queries', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('knowledge_base_id').notNullable().references('knowledge_bases.id').onDelete('CASCADE');
      t.text('source').notNullable();
      t.uuid('agent_id');
      t.uuid('conversation_id');
      t.uuid('message_id');
      t.text('query').notNullable();
      t.integer('result_count').notNullable();
      t.float('top_score');
      t.decimal('cost_usd', 18, 8).notNullable().defaultTo(0);
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.index(['knowledge_base_id', 'created_at']);
      t.index(['message_id']);
    });
    await db.schema.createTable('analytics_chunk_hits', (t) => {
      t.uuid('query_id').notNullable().references('analytics_kb_queries.id').onDelete('CASCADE');
      t.uuid('knowledge_base_id').notNullable();
      t.uuid('chunk_id').notNullable();
      t.uuid('document_id').notNullable();
      t.float('score').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.index(['knowledge_base_id', 'created_at']);
      t.index(['query_id']);
    });
    await db.schema.createTable('message_feedback', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
      t.uuid('message_id').notNullable().references('messages.id').onDelete('CASCADE');
      t.uuid('agent_id').notNullable();
      /** `user:<id>` or `anon:<id>`: one rating per rater and message (a new one replaces it). */
      t.text('rater').notNullable();
      t.smallint('rating').notNullable();
      t.text('comment');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.unique(['message_id', 'rater']);
      t.index(['organization_id', 'created_at']);
    });
    // The same measures per hour (time zones, partial days) and per UTC day (long ranges read 24 times fewer rows).
    for (const [table, bucket] of [
      ['analytics_hourly', 'hour'],
      ['analytics_daily', 'day'],
    ] as const) {
      await db.schema.createTable(table, (t) => {
        t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
        t.timestamp(bucket, { useTz: true }).notNullable();
        t.uuid('agent_id').notNullable();
        t.text('model').notNullable();
        t.integer('conversations').notNullable();
        t.integer('messages').notNullable();
        t.bigInteger('tokens').notNullable();
        t.decimal('cost_usd', 20, 8).notNullable();
        t.bigInteger('response_ms_sum').notNullable();
        t.integer('response_count').notNullable();
        t.primary(['organization_id', bucket, 'agent_id', 'model']);
      });
    }
    await db.schema.createTable('analytics_rollup_state', (t) => {
      t.text('name').primary();
      t.timestamp('covered_until', { useTz: true });
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
    await db.schema.createTable('kb_learning_settings', (t) => {
      t.uuid('knowledge_base_id').primary().references('knowledge_bases.id').onDelete('CASCADE');
      t.uuid('organization_id').notNullable();
      t.boolean('prior_enabled').notNullable().defaultTo(true);
    });
    // Written by the background job: kept apart from the settings users change.
    await db.schema.createTable('kb_prior_refreshes', (t) => {
      t.uuid('knowledge_base_id').primary().references('knowledge_bases.id').onDelete('CASCADE');
      t.timestamp('refreshed_at', { useTz: true }).notNullable();
    });
    await db.schema.createTable('kb_chunk_priors', (t) => {
      t.uuid('knowledge_base_id').notNullable().references('knowledge_bases.id').onDelete('CASCADE');
      t.uuid('chunk_id').notNullable();
      t.uuid('document_id').notNullable();
      t.uuid('organization_id').notNullable();
      t.float('prior').notNullable();
      t.integer('retrievals').notNullable();
      t.integer('positive').notNullable();
      t.integer('negative').notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.primary(['knowledge_base_id', 'chunk_id']);
    });
    // The rollup job scans recent messages and conversations of every organization.
    await db.schema.alterTable('messages', (t) => t.index(['created_at'], 'messages_created_at_idx'));
    await db.schema.alterTable('conversations', (t) => t.index(['created_at'], 'conversations_created_at_idx'));
  },
};
