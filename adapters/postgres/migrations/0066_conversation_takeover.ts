import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * An operator's takeover of a conversation (issue 15): while set, visitor messages are stored for the operator
 * and the agent does not answer. `{operatorId, displayName, since}`; null when the agent answers.
 */
export const conversationTakeoverMigration: Migration = {
  name: '0066_conversation_takeover',
  async up(db: Knex) {
    await db.schema.alterTable('conversations', (t) => {
      t.jsonb('takeover').nullable();
    });
  },
};
