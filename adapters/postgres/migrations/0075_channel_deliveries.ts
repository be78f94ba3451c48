import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Channel replies are an outbox (docs/contracts.md "Delivery guarantees"): one row per message to send through a channel
 * (an agent's answer to an inbound message, or an operator's message), written next to the stored answer and
 * holding the exact recipient and text, its attempts, the last error and when the next attempt is due. An agent's
 * answer is keyed on the inbound provider message id it answers, so a redelivered inbound message finds it instead
 * of answering twice.
 */
export const channelDeliveriesMigration: Migration = {
  name: '0075_channel_deliveries',
  async up(db: Knex) {
    await db.schema.createTable('channel_deliveries', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.uuid('channel_id').notNullable().references('channels.id').onDelete('CASCADE');
      t.uuid('agent_id').notNullable().references('agents.id').onDelete('CASCADE');
      t.uuid('conversation_id').notNullable().references('conversations.id').onDelete('CASCADE');
      // The inbound provider message id answered (null for operator messages): at most one reply each.
      t.text('inbound_message_id');
      // The stored message (assistant answer or operator message) this delivery carries.
      t.uuid('message_id');
      // The provider's id of the sent message, once accepted.
      t.text('external_id');
      t.jsonb('payload').notNullable();
      t.text('status').notNullable();
      t.integer('attempts').notNullable().defaultTo(0);
      t.text('last_error');
      t.timestamp('next_attempt_at', { useTz: true });
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('updated_at', { useTz: true }).notNullable();
      t.timestamp('sent_at', { useTz: true });
      // NULLs are distinct: operator messages (no inbound id) never collide.
      t.unique(['channel_id', 'inbound_message_id']);
      t.index(['organization_id', 'channel_id', 'created_at']);
    });
    // The relay's scan: pending deliveries by when they were last due or touched.
    await db.raw(
      "create index channel_deliveries_pending_idx on channel_deliveries (coalesce(next_attempt_at, updated_at)) where status = 'pending'",
    );
  },
};
