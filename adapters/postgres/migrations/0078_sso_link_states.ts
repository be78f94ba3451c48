import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * A pending OpenID Connect flow started by a signed-in user to link a provider to their account
 * (`POST /api/auth/sso/:slug/link`): the callback links the identity to that user (docs/contracts.md "Single sign-on").
 */
export const ssoLinkStatesMigration: Migration = {
  name: '0078_sso_link_states',
  async up(db: Knex) {
    await db.schema.alterTable('sso_states', (t) => {
      t.uuid('user_id').references('users.id').onDelete('CASCADE');
    });
  },
};
