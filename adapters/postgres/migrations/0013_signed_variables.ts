import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Names of the variables a conversation received from a signed context token (issue 8, item 3): they are
 * read-only for the conversation, so the variables endpoint cannot replace them.
 */
export const signedVariablesMigration: Migration = {
  name: '0013_signed_variables',
  async up(db: Knex) {
    await db.schema.alterTable('conversations', (t) => {
      t.jsonb('signed_variable_names').notNullable().defaultTo('[]');
    });
  },
};
