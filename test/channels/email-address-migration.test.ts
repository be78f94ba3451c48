/**
 * Migration 0077_email_address_unique on the embedded store: addresses claimed by several active email channels
 * before it (any letter case) keep the earliest created channel active and deactivate the later ones; after it
 * the database itself refuses a second active channel for an address.
 */
import { randomUUID } from 'node:crypto';

import { type Database, openDatabase } from '../../adapters/postgres/database';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { seedOrganization } from '../analytics/seed-analytics';

let db: Database;
beforeAll(async () => {
  db = await openDatabase({ memory: true, poolMax: 1 });
}, 120_000);
afterAll(() => db?.close());

it('keeps the earliest active claim of an address, deactivates later ones, then refuses duplicates', async () => {
  const before = relationalMigrations.migrations.filter((m) => m.name < '0077_email_address_unique');
  await migrate(db.knex, [{ ...relationalMigrations, migrations: before }]);
  const a = await seedOrganization(db.knex, 1);
  const b = await seedOrganization(db.knex, 1);
  const channel = (org: typeof a, address: string, createdAt: string, isActive = true) => {
    const id = randomUUID();
    return {
      id,
      row: {
        id,
        organization_id: org.organizationId,
        agent_id: org.agentIds[0],
        type: 'email',
        label: address,
        is_active: isActive,
        config: JSON.stringify({ address }),
        secrets: '{}',
        created_at: createdAt,
        updated_at: createdAt,
      },
    };
  };
  const earliest = channel(a, 'support@acme.test', '2026-01-01T00:00:00Z');
  const later = channel(b, 'Support@ACME.test', '2026-01-02T00:00:00Z');
  const latest = channel(b, 'support@acme.test', '2026-01-03T00:00:00Z');
  const inactiveFirst = channel(b, 'sales@acme.test', '2025-12-01T00:00:00Z', false);
  const alone = channel(a, 'sales@acme.test', '2026-01-01T00:00:00Z');
  await db.knex('channels').insert([earliest, later, latest, inactiveFirst, alone].map((c) => c.row));

  await migrate(db.knex, [relationalMigrations]);
  const active = async (id: string) => (await db.knex('channels').where({ id }).first('is_active')).is_active;
  expect(await active(earliest.id)).toBe(true);
  expect(await active(later.id)).toBe(false);
  expect(await active(latest.id)).toBe(false);
  expect(await active(inactiveFirst.id)).toBe(false);
  expect(await active(alone.id)).toBe(true);

  await expect(db.knex('channels').where({ id: later.id }).update({ is_active: true })).rejects.toMatchObject({ code: '23505' });
  // An inactive channel may keep the address; another address is free.
  await db.knex('channels').insert(channel(b, 'SUPPORT@acme.test', '2026-02-01T00:00:00Z', false).row);
  await db.knex('channels').insert(channel(b, 'billing@acme.test', '2026-02-01T00:00:00Z').row);
});
