import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * The job contract (docs/contracts.md "Jobs"): one row per long-running job holding its current state (the event
 * history is not kept: streams replay the current state), and the webhook deliveries of job events with their
 * attempts. Ids are text: UUIDs for documents and syncs, `bld_...` for builds.
 */
export const jobsMigration: Migration = {
  name: '0016_jobs',
  async up(db: Knex) {
    await db.schema.createTable('jobs', (t) => {
      t.text('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.text('kind').notNullable();
      t.text('status').notNullable();
      t.integer('progress').notNullable().defaultTo(0);
      t.text('step');
      t.text('step_label');
      t.text('detail');
      t.jsonb('error');
      t.jsonb('result');
      t.jsonb('body').notNullable().defaultTo('{}');
      t.jsonb('reference').notNullable().defaultTo('{}');
      t.text('webhook_url');
      t.uuid('created_by');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.timestamp('started_at', { useTz: true });
      t.timestamp('finished_at', { useTz: true });
      t.timestamp('emitted_at', { useTz: true }).notNullable();
      t.index(['organization_id', 'kind', 'created_at']);
    });
    await db.schema.createTable('webhook_deliveries', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.text('job_id').references('jobs.id').onDelete('CASCADE');
      t.text('url').notNullable();
      t.text('event').notNullable();
      t.text('body').notNullable();
      t.text('status').notNullable();
      t.integer('attempts').notNullable().defaultTo(0);
      t.integer('last_status_code');
      t.text('last_error');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.timestamp('delivered_at', { useTz: true });
      t.index(['job_id', 'created_at']);
      t.index(['organization_id', 'status']);
    });
  },
};
