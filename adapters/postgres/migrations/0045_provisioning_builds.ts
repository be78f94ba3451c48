import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Provisioning builds (spec 3.3): the resumable state of each build (its public state is the `jobs` row of the
 * same id) and the Idempotency-Keys of `POST /v1/agents:from-url`. One active build per organization and
 * handle (partial unique index), so concurrent requests for one channel follow one build.
 */
export const provisioningBuildsMigration: Migration = {
  name: '0045_provisioning_builds',
  async up(db: Knex) {
    await db.schema.createTable('provisioning_builds', (t) => {
      t.text('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('api_key_id').notNullable();
      t.uuid('created_by').notNullable();
      t.text('handle').notNullable();
      t.text('source_type').notNullable();
      t.text('url').notNullable();
      t.text('mode').notNullable();
      t.text('intent');
      t.text('model');
      t.text('phase').notNullable();
      t.text('status').notNullable();
      t.jsonb('state').notNullable().defaultTo('{}');
      t.uuid('agent_id');
      t.uuid('knowledge_base_id');
      t.text('agent_slug');
      t.integer('runs').notNullable().defaultTo(0);
      t.timestamp('lease_until', { useTz: true });
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.timestamp('finished_at', { useTz: true });
      t.index(['organization_id', 'handle', 'status', 'finished_at']);
      t.index(['status', 'updated_at']);
    });
    await db.raw(
      `CREATE UNIQUE INDEX provisioning_builds_one_active ON provisioning_builds (organization_id, handle) WHERE status = 'active'`,
    );
    await db.schema.createTable('provisioning_idempotency_keys', (t) => {
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.text('key').notNullable();
      t.text('request_hash').notNullable();
      t.text('build_id').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.primary(['organization_id', 'key']);
    });
  },
};
