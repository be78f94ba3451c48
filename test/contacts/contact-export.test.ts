/**
 * The contacts CSV export below the HTTP route, on both stores: the embedded one (keyset pages) and a real
 * Postgres server (server-side cursor, TEST_REAL_SERVICES=1). More rows than one page or cursor batch, read back
 * with a CSV parser: every row once, the attribute columns sorted, RFC 4180 quoting and formula neutralisation.
 * A consumer that stops early (a client that went away) leaves the store usable: the cursor's connection is
 * given back (one connection in the pool, so a leaked one would fail the next read).
 */
import { randomUUID } from 'node:crypto';
import { Writable } from 'node:stream';

import { parse } from 'csv-parse/sync';

import { writeCsv } from '../../adapters/http/csv-stream';
import { type Database, openDatabase } from '../../adapters/postgres/database';
import { KnexStore } from '../../adapters/postgres/knex-store';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import type { ContactDeps } from '../../core/contacts/contact-deps';
import { contactExport, EXPORT_COLUMNS } from '../../core/contacts/contact-export';
import { createScratchDatabase, realServices } from '../support/databases';

const ROWS = 1234;
const SETUP_TIMEOUT_MS = 240_000;

function collector() {
  const chunks: Buffer[] = [];
  const sink = new Writable({
    write(chunk: Buffer, _e, done) {
      chunks.push(chunk);
      setImmediate(done);
    },
  });
  return { sink, bytes: () => Buffer.concat(chunks) };
}

const stores: [string, boolean, () => Promise<{ db: Database; teardown(): Promise<void> }>][] = [
  [
    'embedded (keyset pages)',
    true,
    async () => {
      const db = await openDatabase({ memory: true, poolMax: 1 });
      return { db, teardown: () => db.close() };
    },
  ],
  [
    'postgres (server-side cursor)',
    realServices,
    async () => {
      const scratch = await createScratchDatabase('contact_export');
      const db = await openDatabase({ url: scratch.url, poolMax: 1 });
      return { db, teardown: () => db.close().then(scratch.drop) };
    },
  ],
];

describe.each(stores)('contacts CSV export: %s', (_name, enabled, open) => {
  const maybe = enabled ? it : it.skip;
  let fx: { db: Database; teardown(): Promise<void> };
  let deps: ContactDeps;
  const org = randomUUID();
  const other = randomUUID();
  let tricky: string;

  beforeAll(async () => {
    if (!enabled) return;
    fx = await open();
    await migrate(fx.db.knex, [relationalMigrations]);
    const store = new KnexStore(fx.db.knex, { cursors: fx.db.kind === 'postgres' });
    deps = { store, clock: { now: () => new Date() }, ids: { uuid: randomUUID } } as unknown as ContactDeps;
    for (const [id, name] of [
      [org, 'Export org'],
      [other, 'Other org'],
    ])
      await fx.db.knex('organizations').insert({
        id,
        name,
        slug: `o-${id.slice(0, 8)}`,
        plan_seats: 5,
        plan_agents: 5,
        plan_knowledge_bases: 5,
        created_at: new Date(),
      });
    const contact = (organizationId: string, n: number, attributes: Record<string, unknown>) => ({
      id: randomUUID(),
      organization_id: organizationId,
      display_name: `Person ${n}`,
      source_channel: 'web',
      status: 'new',
      attributes: JSON.stringify(attributes),
      first_seen_at: new Date(),
      last_seen_at: new Date(),
    });
    const rows = Array.from({ length: ROWS }, (_, n) => contact(org, n, { zeta: `z${n}`, alpha: n % 2 === 0 }));
    tricky = rows[7].id;
    rows[7].display_name = '=SUM(A1:A9), "quoted"\nnext line';
    rows[7].attributes = JSON.stringify({ zeta: '@cmd', alpha: -3, nested: { a: 1 } });
    for (let i = 0; i < rows.length; i += 500) await fx.db.knex('contacts').insert(rows.slice(i, i + 500));
    await fx.db.knex('contacts').insert(contact(other, 0, { secret: 'other org' }));
  }, SETUP_TIMEOUT_MS);
  afterAll(() => fx?.teardown(), SETUP_TIMEOUT_MS);

  maybe('streams every row of the organization once, header with sorted attribute keys, quoted and neutralised', async () => {
    const out = collector();
    await writeCsv(await contactExport(deps, org, {}), out.sink);
    const bytes = out.bytes();
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf]);
    const text = bytes.subarray(3).toString('utf8');
    expect(text.split('\r\n')[0]).toBe([...EXPORT_COLUMNS, 'alpha', 'nested', 'zeta'].join(','));
    const records: string[][] = parse(text, { relax_column_count: false });
    const body = records.slice(1);
    expect(body).toHaveLength(ROWS);
    expect(new Set(body.map((r) => r[0])).size).toBe(ROWS);
    expect(body.every((r) => r[1] === org && r[10] === 'Export org')).toBe(true);
    const row = body.find((r) => r[0] === tricky)!;
    expect(row[2]).toBe(`'=SUM(A1:A9), "quoted"\nnext line`);
    expect(row.slice(15)).toEqual(['-3', '{"a":1}', "'@cmd"]);
    expect(text).toContain(`"'=SUM(A1:A9), ""quoted""\nnext line"`);
    const plain = body.find((r) => r[0] !== tricky)!;
    expect(['true', 'false']).toContain(plain[15]);
  });

  maybe('a consumer that stops early gives the connection back: the next export runs whole', async () => {
    const table = await contactExport(deps, org, {});
    let taken = 0;
    for await (const cells of table.rows) {
      expect(cells).toHaveLength(EXPORT_COLUMNS.length + 3);
      if (++taken === 3) break;
    }
    for (let round = 0; round < 3; round++) {
      const out = collector();
      await writeCsv(await contactExport(deps, org, { status: 'new' }), out.sink);
      expect(parse(out.bytes().subarray(3).toString('utf8'))).toHaveLength(ROWS + 1);
    }
  });
});
