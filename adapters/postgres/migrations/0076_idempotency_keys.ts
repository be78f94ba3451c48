import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * The `Idempotency-Key` records of every POST of `/api` and `/v1` (docs/contracts.md "Delivery guarantees"): one per
 * scope (an organization id, `anon:<anonymousId>` on the public lane...) and key, claimed in progress before
 * the request runs, then completed with the answer replayed to the same request within 24 hours. The key is
 * kept as a digest and the answer sealed with a key derived from it (adapters/http/idempotency.ts): answers
 * can hold secrets shown once (a new API key, session tokens). `POST /v1/agents:from-url` keeps its own
 * `provisioning_idempotency_keys` (0045).
 */
export const idempotencyKeysMigration: Migration = {
  name: '0076_idempotency_keys',
  async up(db: Knex) {
    await db.schema.createTable('idempotency_keys', (t) => {
      t.text('scope').notNullable();
      t.text('key_hash').notNullable();
      t.text('method').notNullable();
      t.text('path').notNullable();
      t.text('fingerprint').notNullable();
      t.text('state').notNullable();
      t.text('lock_token');
      t.timestamp('locked_until', { useTz: true });
      t.integer('response_status');
      t.jsonb('response_headers');
      t.binary('response_body');
      t.boolean('replayable').notNullable().defaultTo(true);
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.timestamp('completed_at', { useTz: true });
      t.timestamp('expires_at', { useTz: true }).notNullable();
      t.primary(['scope', 'key_hash']);
      t.index(['expires_at']);
    });
    await db.raw(`alter table idempotency_keys add constraint idempotency_keys_state check (state in ('in_progress', 'completed'))`);
  },
};
