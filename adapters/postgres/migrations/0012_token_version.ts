import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Per-user access-token version (issue 8, item 5): every access token carries the version it was issued
 * under; bumping it (refresh-token reuse, password change, suspension) refuses every earlier token at once.
 * A counter rather than a "valid after" time: a token issued in the same second as the revocation is then
 * still told apart.
 */
export const tokenVersionMigration: Migration = {
  name: '0012_token_version',
  async up(db: Knex) {
    await db.schema.alterTable('users', (t) => {
      t.integer('token_version').notNullable().defaultTo(0);
    });
  },
};
