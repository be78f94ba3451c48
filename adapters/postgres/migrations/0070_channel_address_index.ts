import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * Inbound email finds its channel by the address written to (`findActiveByAddress`: active channels of a type,
 * case-insensitive address, the earliest first). Without an index every message scanned all channels of every
 * organization. WhatsApp needs none: its webhook URL carries the channel id (primary key).
 */
export const channelAddressIndexMigration: Migration = {
  name: '0070_channel_address_index',
  async up(db: Knex) {
    await db.raw("create index channels_active_address_idx on channels (type, lower(config->>'address'), created_at, id) where is_active");
  },
};
