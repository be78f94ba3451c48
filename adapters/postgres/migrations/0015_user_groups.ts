import type { Knex } from 'knex';

import type { Migration } from '../migrator';

/**
 * User groups (docs/contracts.md "Groups"): named per organization (unique regardless of case), members are users of
 * that organization. Deleting a group or a user removes their memberships.
 */
export const userGroupsMigration: Migration = {
  name: '0015_user_groups',
  async up(db: Knex) {
    await db.schema.createTable('user_groups', (t) => {
      t.uuid('id').primary();
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.text('name').notNullable();
      t.uuid('created_by').references('users.id').onDelete('SET NULL');
      t.timestamp('created_at', { useTz: true }).notNullable();
      t.index(['organization_id', 'created_at']);
    });
    await db.raw('CREATE UNIQUE INDEX user_groups_org_name_idx ON user_groups (organization_id, lower(name))');
    await db.schema.createTable('user_group_members', (t) => {
      t.uuid('group_id').notNullable().references('user_groups.id').onDelete('CASCADE');
      t.uuid('user_id').notNullable().references('users.id').onDelete('CASCADE');
      t.uuid('organization_id').notNullable().references('organizations.id').onDelete('CASCADE');
      t.timestamp('added_at', { useTz: true }).notNullable();
      t.primary(['group_id', 'user_id']);
      t.index(['organization_id', 'user_id']);
    });
  },
};
