import type { Knex } from 'knex';

import type { Migration } from '../migrator';

export const identityMigration: Migration = {
  name: '0001_identity',
  async up(db: Knex) {
    await db.schema.createTable('users', (t) => {
      t.uuid('id').primary();
      t.text('email').notNullable().unique();
      t.text('display_name').notNullable();
      t.text('password_hash');
      t.boolean('email_verified').notNullable().defaultTo(false);
      t.text('account_type').notNullable();
      t.text('platform_role').notNullable().defaultTo('user');
      t.text('status').notNullable().defaultTo('active');
      t.text('google_subject').unique();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
    await db.schema.createTable('organizations', (t) => {
      t.uuid('id').primary();
      t.text('name').notNullable();
      t.text('slug').notNullable().unique();
      t.integer('plan_seats').notNullable();
      t.integer('plan_agents').notNullable();
      t.integer('plan_knowledge_bases').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
    });
    await db.schema.createTable('memberships', (t) => {
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
      t.text('role').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.primary(['organization_id', 'user_id']);
      t.index(['user_id']);
    });
    await db.schema.createTable('refresh_tokens', (t) => {
      t.uuid('id').primary();
      t.uuid('family_id').notNullable().index();
      t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
      t.uuid('active_organization_id');
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('used_at', { useTz: true });
      t.timestamp('revoked_at', { useTz: true });
      t.timestamp('created_at', { useTz: true }).notNullable();
    });
    await db.schema.createTable('oauth_states', (t) => {
      t.text('state').primary();
      t.text('code_verifier').notNullable();
      t.text('redirect_to');
      t.timestamp('expires_at', { useTz: true }).notNullable();
    });
    await db.schema.createTable('invitations', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.text('email').notNullable();
      t.text('role').notNullable();
      t.text('status').notNullable();
      t.text('token_hash').notNullable().unique();
      t.uuid('invited_by').notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.index(['organization_id', 'status']);
    });
    await db.schema.createTable('api_keys', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.text('name').notNullable();
      t.specificType('scopes', 'text[]').notNullable();
      t.text('prefix').notNullable();
      t.text('secret_hash').notNullable().unique();
      t.uuid('created_by').notNullable();
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('last_used_at', { useTz: true });
      t.timestamp('revoked_at', { useTz: true });
      t.index(['organization_id']);
    });
    await db.schema.createTable('wallets', (t) => {
      t.uuid('organization_id').primary().references('organizations.id').onDelete('CASCADE');
      t.decimal('balance_usd', 18, 8).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
    await db.schema.createTable('billing_events', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.text('kind').notNullable();
      t.text('model');
      t.integer('prompt_tokens').notNullable().defaultTo(0);
      t.integer('completion_tokens').notNullable().defaultTo(0);
      t.decimal('provider_cost_usd', 18, 8).notNullable();
      t.decimal('cost_usd', 18, 8).notNullable();
      t.jsonb('reference').notNullable().defaultTo('{}');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.index(['organization_id', 'created_at']);
    });
    await db.schema.createTable('audit_log', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().index();
      t.uuid('actor_id');
      t.text('action').notNullable();
      t.text('resource_type').notNullable();
      t.text('resource_id');
      t.jsonb('metadata').notNullable().defaultTo('{}');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.index(['organization_id', 'created_at']);
    });
  },
};
