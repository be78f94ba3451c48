/**
 * Contact list search below the HTTP route, on both stores (TEST_REAL_SERVICES=1 for Postgres). The search
 * runs on the narrow `contact_search` table (migration 0069) kept in step by a trigger: these check that it
 * follows every write (insert, name/email/phone/status update, delete), that the match stays a
 * case-insensitive substring of name, email or phone (never across two fields, LIKE wildcards literal), and
 * that `total` is exact whatever the page (also past the end) with the status, channel and agent filters.
 */
import { randomUUID } from 'node:crypto';

import { type Database, openDatabase } from '../../adapters/postgres/database';
import { KnexStore } from '../../adapters/postgres/knex-store';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import type { Contact } from '../../core/contacts/contact';
import { createScratchDatabase, realServices } from '../support/databases';

const SETUP_TIMEOUT_MS = 240_000;

const stores: [string, boolean, () => Promise<{ db: Database; teardown(): Promise<void> }>][] = [
  [
    'embedded',
    true,
    async () => {
      const db = await openDatabase({ memory: true, poolMax: 1 });
      return { db, teardown: () => db.close() };
    },
  ],
  [
    'postgres',
    realServices,
    async () => {
      const scratch = await createScratchDatabase('contact_search');
      const db = await openDatabase({ url: scratch.url, poolMax: 2 });
      return { db, teardown: () => db.close().then(scratch.drop) };
    },
  ],
];

describe.each(stores)('contact search: %s', (_name, enabled, open) => {
  const maybe = enabled ? it : it.skip;
  let fx: { db: Database; teardown(): Promise<void> };
  let store: KnexStore;
  const org = randomUUID();
  const other = randomUUID();
  const ids: Record<string, string> = {};

  const contact = (organizationId: string, name: string | null, email: string | null, phone: string | null, at: number): Contact => ({
    id: randomUUID(),
    organizationId,
    displayName: name,
    displayNameSource: name ? 'extraction' : null,
    primaryEmail: email,
    primaryPhone: phone,
    sourceChannel: 'web',
    status: 'new',
    attributes: {},
    firstSeenAt: new Date(1_700_000_000_000 + at * 1000).toISOString(),
    lastSeenAt: new Date(1_700_000_000_000 + at * 1000).toISOString(),
  });
  const search = (search: string, extra: Record<string, string> = {}, page = { limit: 20, offset: 0 }) =>
    store.repos.contacts.list({ organizationId: org, search, ...extra }, page);
  const names = async (term: string, extra: Record<string, string> = {}) =>
    (await search(term, extra)).items.map((i) => i.displayName ?? i.primaryEmail ?? i.primaryPhone);

  beforeAll(async () => {
    if (!enabled) return;
    fx = await open();
    await migrate(fx.db.knex, [relationalMigrations]);
    store = new KnexStore(fx.db.knex, { cursors: fx.db.kind === 'postgres' });
    for (const id of [org, other])
      await fx.db.knex('organizations').insert({
        id,
        name: 'Search org',
        slug: `s-${id.slice(0, 8)}`,
        plan_seats: 5,
        plan_agents: 5,
        plan_knowledge_bases: 5,
        created_at: new Date(),
      });
    const rows = [
      contact(org, 'Ada Lovelace', 'ada@example.com', '+442079460958', 1),
      contact(org, 'Grace Hopper', 'grace@navy.mil', '+12025550100', 2),
      contact(org, 'ALAN Turing', null, null, 3),
      contact(org, null, 'anon_50%@example.org', null, 4),
      contact(org, 'Linus', null, '+4915100000001', 5),
      contact(other, 'Ada Other', 'ada@other.org', null, 6),
    ];
    for (const c of rows) {
      await store.repos.contacts.create(c);
      ids[c.displayName ?? c.primaryEmail ?? ''] = c.id;
    }
  }, SETUP_TIMEOUT_MS);
  afterAll(() => fx?.teardown(), SETUP_TIMEOUT_MS);

  maybe('matches a case-insensitive substring of name, email or phone, within the organization', async () => {
    expect(await names('ADA')).toEqual(['Ada Lovelace']);
    expect(await names('turing')).toEqual(['ALAN Turing']);
    expect(await names('navy.mil')).toEqual(['Grace Hopper']);
    expect(await names('2079460')).toEqual(['Ada Lovelace']);
    expect(await names('example')).toEqual(['anon_50%@example.org', 'Ada Lovelace']); // newest first
    expect((await search('a')).total).toBe(4);
  });

  maybe('never matches across two fields, and takes LIKE wildcards literally', async () => {
    expect((await search('lovelaceada')).total).toBe(0);
    expect((await search('lovelace\u001fada')).total).toBe(0);
    expect(await names('_50%')).toEqual(['anon_50%@example.org']);
    expect((await search('%')).total).toBe(1);
    expect((await search('a_a')).total).toBe(0);
  });

  maybe('counts every match whatever the page, also past the end', async () => {
    const first = await search('a', {}, { limit: 2, offset: 0 });
    expect(first.total).toBe(4);
    expect(first.items).toHaveLength(2);
    const past = await search('a', {}, { limit: 2, offset: 10 });
    expect(past).toEqual({ items: [], total: 4 });
    const none = await store.repos.contacts.list({ organizationId: randomUUID() }, { limit: 20, offset: 0 });
    expect(none).toEqual({ items: [], total: 0 });
    expect((await store.repos.contacts.list({ organizationId: org }, { limit: 1, offset: 0 })).total).toBe(5);
  });

  maybe('follows updates of name, email, phone and status, and deletes', async () => {
    const id = ids['Linus'];
    await store.repos.contacts.update(org, id, { displayName: 'Linus Torvalds', primaryEmail: 'linus@kernel.org' });
    expect(await names('torvalds')).toEqual(['Linus Torvalds']);
    expect(await names('kernel.org')).toEqual(['Linus Torvalds']);
    await store.repos.contacts.update(org, id, { primaryPhone: '+4915199999999' });
    expect((await search('4915100000001')).total).toBe(0);
    expect(await names('4915199999999')).toEqual(['Linus Torvalds']);
    await store.repos.contacts.update(org, id, { status: 'qualified' });
    expect(await names('linus', { status: 'qualified' })).toEqual(['Linus Torvalds']);
    expect((await search('linus', { status: 'new' })).total).toBe(0);
    expect((await store.repos.contacts.list({ organizationId: org, status: 'qualified' }, { limit: 20, offset: 0 })).total).toBe(1);
    // A bump of last seen (every inbound message) keeps the search row and moves the contact first.
    await store.repos.contacts.update(org, ids['Grace Hopper'], { lastSeenAt: new Date(1_800_000_000_000).toISOString() });
    expect((await search('a')).items[0].displayName).toBe('Grace Hopper');
    expect(await store.repos.contacts.delete(org, id)).toBe(true);
    expect((await search('linus')).total).toBe(0);
    const left = await fx.db.knex('contact_search').where({ contact_id: id }).first();
    expect(left).toBeUndefined();
  });

  maybe('filters by channel identity together with the search', async () => {
    await store.repos.contacts.addIdentity(org, ids['Ada Lovelace'], {
      id: randomUUID(),
      channel: 'whatsapp_business',
      identifier: '+442079460958',
      at: new Date().toISOString(),
    });
    const r = await search('a', { channel: 'whatsapp_business' });
    expect(r.total).toBe(1);
    expect(r.items.map((i) => [i.displayName, i.channels])).toEqual([['Ada Lovelace', ['whatsapp_business']]]);
    expect((await search('grace', { channel: 'whatsapp_business' })).total).toBe(0);
  });
});
