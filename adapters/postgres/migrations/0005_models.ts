import type { Knex } from 'knex';

import type { Migration } from '../migrator';

export const modelsMigration: Migration = {
  name: '0005_models',
  async up(db: Knex) {
    await db.schema.createTable('models', (t) => {
      t.text('id').primary();
      t.text('name').notNullable();
      t.text('provider').notNullable().index();
      t.integer('context_length').notNullable();
      t.double('prompt_price_per_token').notNullable();
      t.double('completion_price_per_token').notNullable();
      t.boolean('is_active').notNullable();
      t.boolean('is_free').notNullable();
      t.jsonb('capabilities').notNullable();
      t.double('recommendation_score').notNullable();
      t.specificType('use_cases', 'text[]').notNullable();
      t.timestamp('last_synced_at', { useTz: true });
    });
  },
};
