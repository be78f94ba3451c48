/**
 * Contacts at 100k: CSV export throughput and memory, and list-with-search latency, each next to a same-run
 * baseline.
 *
 *   npx tsx bench/contacts.bench.ts        writes bench/results/contacts.json (embedded PGlite store)
 *   CONTACTS_N=20000                       a quick run at a smaller size
 *   CONTACTS_ONLY=export | search          only one part (the other is left out of the result)
 *   CONTACTS_STORE=postgres                the real Postgres server of this machine (a scratch database, dropped
 *                                          afterwards; the export then reads through a server-side cursor);
 *                                          writes bench/results/contacts-postgres.json
 *
 * - export: rows/s and peak RSS growth of the export as the HTTP route runs it (use case -> repository rows ->
 *   csv-stringify -> a writable that drains asynchronously, as a socket does) vs one plain `SELECT` of the same
 *   rows formatted to one CSV string;
 * - search: p50/p95 of the list use case with `search` (the exact count and the page with aggregates, one
 *   statement) vs the raw page query (20 rows matched through `contact_search`, no count, no aggregates); the
 *   p50 of the common terms alone (first names, a tenth of the contacts) as well, where the count is the cost.
 */
import { randomUUID } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';

import { stringify } from 'csv-stringify/sync';
import pg from 'pg';

import { writeCsv } from '../adapters/http/csv-stream';
import { libphonenumberIdentifiers } from '../adapters/libphonenumber/identifiers';
import { openDatabase } from '../adapters/postgres/database';
import { KnexStore } from '../adapters/postgres/knex-store';
import { relationalMigrations } from '../adapters/postgres/migrations';
import { migrate } from '../adapters/postgres/migrator';
import type { ContactDeps } from '../core/contacts/contact-deps';
import { contactExport } from '../core/contacts/contact-export';

const N = Number(process.env.CONTACTS_N ?? 100_000);
const ONLY = process.env.CONTACTS_ONLY;
const STORE = process.env.CONTACTS_STORE === 'postgres' ? 'postgres' : 'embedded';
const KEYS = 10;
const SEARCHES = 40;
const NAMES = ['Ada', 'Grace', 'Alan', 'Linus', 'Barbara', 'Ken', 'Margaret', 'Dennis', 'Frances', 'John'];

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;

const PG_ADMIN = process.env.TEST_POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A scratch database on the machine's Postgres, dropped afterwards. */
async function scratchDatabase() {
  const name = `ap_bench_contacts_${randomUUID().slice(0, 8)}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: PG_ADMIN });
    await c.connect();
    try {
      await c.query(sql);
    } finally {
      await c.end();
    }
  };
  await admin(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN);
  url.pathname = `/${name}`;
  return { url: url.toString(), drop: () => admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`) };
}

/** A sink that drops what it gets one event-loop turn later, as a socket drains: backpressure is real. */
function socketLikeSink(onChunk: (bytes: number) => void): Writable {
  return new Writable({
    highWaterMark: 64 * 1024,
    write(chunk: Buffer, _encoding, done) {
      onChunk(chunk.length);
      setImmediate(done);
    },
  });
}

async function main() {
  const scratch = STORE === 'postgres' ? await scratchDatabase() : null;
  const db = await openDatabase(scratch ? { url: scratch.url } : { memory: true });
  await migrate(db.knex, [relationalMigrations]);
  const store = new KnexStore(db.knex, { cursors: db.kind === 'postgres' });
  const org = randomUUID();
  await db.knex('organizations').insert({
    id: org,
    name: 'Bench org',
    slug: `bench-${org.slice(0, 8)}`,
    plan_seats: 5,
    plan_agents: 25,
    plan_knowledge_bases: 25,
    created_at: new Date(),
  });
  const t0 = Date.now();
  // The trigram indexes are dropped for the seed and built again after it with their own definitions: built
  // once they take seconds, kept up row by row (fastupdate off) minutes.
  const gin: { name: string; def: string }[] = (
    await db.knex.raw(
      `select i.relname as name, pg_get_indexdef(x.indexrelid) as def from pg_index x join pg_class i on i.oid = x.indexrelid
       join pg_am am on am.oid = i.relam where am.amname = 'gin' and x.indrelid in ('contacts'::regclass, 'contact_search'::regclass)`,
    )
  ).rows;
  for (const { name } of gin) await db.knex.raw(`drop index ${name}`);
  // Seeded in the database (same values row for row as a client-side loop would write, much faster).
  await db.knex.raw(
    `insert into contacts (id, organization_id, display_name, display_name_source, primary_email, primary_phone, source_channel,
       status, attributes, first_seen_at, last_seen_at)
     select gen_random_uuid(), ?, (?::text[])[n % 10 + 1] || ' Person' || n, 'extraction', 'person' || n || '@example.com',
       '+4915' || (100000000 + n), 'web', 'new',
       (select jsonb_object_agg('attr_' || k, 'value ' || (n % 97) || ' ' || k) from generate_series(0, ${KEYS - 1}) k),
       to_timestamp(1700000000 + n), to_timestamp(1700000000 + n)
     from generate_series(0, ? - 1) n`,
    [org, NAMES, N],
  );
  for (const { def } of gin) await db.knex.raw(def);
  await db.knex.raw('analyze contacts');
  await db.knex.raw('analyze contact_search');
  const seedMs = Date.now() - t0;
  const deps = {
    store,
    clock: { now: () => new Date() },
    ids: { uuid: randomUUID },
    identifiers: libphonenumberIdentifiers(),
  } as unknown as ContactDeps;

  const result: Record<string, unknown> = {
    machine: { cpus: os.cpus().length, node: process.version },
    store: STORE,
    contacts: N,
    attributeKeys: KEYS,
    seedMs,
  };

  if (ONLY !== 'search') {
    // The export as the route runs it, into a socket-like sink.
    global.gc?.();
    const rss0 = process.memoryUsage().rss;
    let peak = rss0;
    let bytes = 0;
    let t = Date.now();
    await writeCsv(
      await contactExport(deps, org, {}),
      socketLikeSink((n) => {
        bytes += n;
        peak = Math.max(peak, process.memoryUsage().rss);
      }),
    );
    const exportMs = Date.now() - t;
    // Baseline: one plain query, formatted to one CSV string.
    global.gc?.();
    const rssB = process.memoryUsage().rss;
    t = Date.now();
    const all = await db.knex('contacts').where({ organization_id: org }).orderBy('id');
    const csv = stringify(
      all.map((r) => [r.id, r.organization_id, r.display_name, r.primary_phone, r.primary_email, r.status, JSON.stringify(r.attributes)]),
      { escape_formulas: true, record_delimiter: 'windows' },
    );
    const baselineMs = Date.now() - t;
    const baselinePeak = process.memoryUsage().rss;
    result.export = {
      rowsPerSecond: Math.round(N / (exportMs / 1000)),
      ms: exportMs,
      megabytes: mb(bytes),
      peakRssGrowthMb: mb(peak - rss0),
      baselinePlainQuery: {
        rowsPerSecond: Math.round(N / (baselineMs / 1000)),
        peakRssGrowthMb: mb(baselinePeak - rssB),
        bytes: csv.length,
      },
    };
  }

  if (ONLY !== 'export') {
    const list = async (search: string) => {
      const s = Date.now();
      await store.repos.contacts.list({ organizationId: org, search }, { limit: 20, offset: 0 });
      return Date.now() - s;
    };
    const raw = async (search: string) => {
      const s = Date.now();
      await db.knex.raw(
        `select * from contacts c where organization_id = ? and exists (select 1 from contact_search s where s.contact_id = c.id and s.haystack like ?)
         order by last_seen_at desc limit 20`,
        [org, `%${search}%`],
      );
      return Date.now() - s;
    };
    const terms = Array.from({ length: SEARCHES }, (_, i) => (i % 2 ? `person${(i * 7919) % N}` : NAMES[i % 10].toLowerCase()));
    const useCase: number[] = [];
    const baseline: number[] = [];
    for (const term of terms) {
      useCase.push(await list(term));
      baseline.push(await raw(term));
    }
    // Even terms are first names (a tenth of the contacts match: the count is the cost), odd ones rare.
    const common = (xs: number[]) => xs.filter((_, i) => i % 2 === 0);
    result.search = {
      useCase: { p50: pct(useCase, 50), p95: pct(useCase, 95), commonTermP50: pct(common(useCase), 50) },
      rawQuery: { p50: pct(baseline, 50), p95: pct(baseline, 95), commonTermP50: pct(common(baseline), 50) },
      loadAverage: os.loadavg().map((l) => Math.round(l * 100) / 100),
    };
  }

  const file = STORE === 'postgres' ? 'contacts-postgres.json' : 'contacts.json';
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  // A partial run keeps the other part of the last result, saying so.
  const previousPath = join(__dirname, 'results', file);
  if (ONLY && existsSync(previousPath)) {
    const previous = JSON.parse(readFileSync(previousPath, 'utf8')) as Record<string, unknown>;
    const kept = ONLY === 'export' ? 'search' : 'export';
    if (previous[kept]) Object.assign(result, { [kept]: previous[kept], note: `${kept} kept from an earlier run` });
  }
  writeFileSync(join(__dirname, 'results', file), JSON.stringify(result, null, 2));
  console.log(JSON.stringify(result, null, 2));
  await db.close();
  await scratch?.drop();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
