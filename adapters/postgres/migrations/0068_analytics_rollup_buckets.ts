import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * The rollup job deletes and rebuilds a range of hours (and the days they touch) of every organization: the
 * primary keys lead with organization_id, so without these each batch scanned the whole rollup tables (the
 * backfill of 90 days in 6-hour batches read them 360 times).
 */
export const analyticsRollupBucketsMigration: Migration = {
  name: '0068_analytics_rollup_buckets',
  async up(db: Knex) {
    await db.schema.alterTable('analytics_hourly', (t) => t.index(['hour'], 'analytics_hourly_hour_idx'));
    await db.schema.alterTable('analytics_daily', (t) => t.index(['day'], 'analytics_daily_day_idx'));
  },
};
