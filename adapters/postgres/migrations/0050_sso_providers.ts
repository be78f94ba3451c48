import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * OpenID Connect sign-in (issue 17): providers configured by an administrator, the external accounts linked
 * to platform users (provider + subject), and the pending sign-ins (state, nonce, PKCE verifier; single use).
 */
export const ssoProvidersMigration: Migration = {
  name: '0050_sso_providers',
  async up(db: Knex) {
    await db.schema.createTable('sso_providers', (t) => {
      t.uuid('id').primary();
      t.text('slug').notNullable().unique();
      t.text('name').notNullable();
      t.text('preset').notNullable();
      t.text('issuer_url').notNullable();
      t.text('client_id').notNullable();
      t.text('client_secret').notNullable();
      t.jsonb('allowed_email_domains').notNullable().defaultTo('[]');
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.text('default_role').notNullable();
      t.text('group_claim');
      t.jsonb('group_roles').notNullable().defaultTo('{}');
      t.boolean('enabled').notNullable().defaultTo(true);
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
    });
    await db.schema.createTable('sso_identities', (t) => {
      t.uuid('provider_id').notNullable().references('sso_providers.id').onDelete('CASCADE');
      t.text('subject').notNullable();
      t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.primary(['provider_id', 'subject']);
      t.index(['user_id']);
    });
    await db.schema.createTable('sso_states', (t) => {
      t.text('state').primary();
      t.uuid('provider_id').notNullable().references('sso_providers.id').onDelete('CASCADE');
      t.text('code_verifier').notNullable();
      t.text('nonce').notNullable();
      t.timestamp('expires_at', { useTz: true }).notNullable().index();
    });
  },
};
