/**
 * Contacts at 100k on the embedded store (PGlite): CSV export throughput and memory, and list-with-search
 * latency, each next to a same-run baseline.
 *
 *   npx tsx bench/contacts.bench.ts        writes bench/results/contacts.json  (CONTACTS_N=20000 for a quick run)
 *
 * - export: rows/s and peak RSS growth of the streamed export use case (keyset batches -> CSV chunks, consumed
 *   and dropped as a socket would) vs one plain `SELECT * FROM contacts` formatted to CSV in one string;
 * - search: p50/p95 of the list use case with `search` (the count and the page with aggregates) vs the raw
 *   ILIKE query on the same table returning 20 rows.
 */
import { randomUUID } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';

import { libphonenumberIdentifiers } from '../adapters/libphonenumber/identifiers';
import { openDatabase } from '../adapters/postgres/database';
import { KnexStore } from '../adapters/postgres/knex-store';
import { relationalMigrations } from '../adapters/postgres/migrations';
import { migrate } from '../adapters/postgres/migrator';
import type { ContactDeps } from '../core/contacts/contact-deps';
import { contactCsv, csvLine } from '../core/contacts/contact-export';

const N = Number(process.env.CONTACTS_N ?? 100_000);
const KEYS = 10;
const SEARCHES = 40;

const pct = (xs: number[], p: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor((p / 100) * xs.length))];
const mb = (n: number) => Math.round((n / 1024 / 1024) * 10) / 10;

async function main() {
  const db = await openDatabase({ memory: true });
  await migrate(db.knex, [relationalMigrations]);
  const store = new KnexStore(db.knex);
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
  const names = ['Ada', 'Grace', 'Alan', 'Linus', 'Barbara', 'Ken', 'Margaret', 'Dennis', 'Frances', 'John'];
  const t0 = Date.now();
  for (let i = 0; i < N; i += 1000) {
    const rows = Array.from({ length: Math.min(1000, N - i) }, (_, j) => {
      const n = i + j;
      const attributes = Object.fromEntries(Array.from({ length: KEYS }, (_, k) => [`attr_${k}`, `value ${n % 97} ${k}`]));
      return {
        id: randomUUID(),
        organization_id: org,
        display_name: `${names[n % 10]} Person${n}`,
        display_name_source: 'extraction',
        primary_email: `person${n}@example.com`,
        primary_phone: `+4915${String(100000000 + n)}`,
        source_channel: 'web',
        status: 'new',
        attributes: JSON.stringify(attributes),
        first_seen_at: new Date(1_700_000_000_000 + n * 1000),
        last_seen_at: new Date(1_700_000_000_000 + n * 1000),
      };
    });
    await db.knex('contacts').insert(rows);
  }
  await db.knex.raw('analyze contacts');
  const seedMs = Date.now() - t0;
  const deps = {
    store,
    clock: { now: () => new Date() },
    ids: { uuid: randomUUID },
    identifiers: libphonenumberIdentifiers(),
  } as unknown as ContactDeps;

  // Export through the use case, chunks dropped as they would be written to a socket.
  global.gc?.();
  const rss0 = process.memoryUsage().rss;
  let peak = rss0;
  let bytes = 0;
  let t = Date.now();
  for await (const chunk of contactCsv(deps, org, {})) {
    bytes += chunk.length;
    peak = Math.max(peak, process.memoryUsage().rss);
  }
  const exportMs = Date.now() - t;
  // Baseline: one plain query, formatted to one CSV string.
  global.gc?.();
  const rssB = process.memoryUsage().rss;
  t = Date.now();
  const all = await db.knex('contacts').where({ organization_id: org }).orderBy('id');
  let csv = '';
  for (const r of all)
    csv += csvLine([r.id, r.organization_id, r.display_name, r.primary_phone, r.primary_email, r.status, JSON.stringify(r.attributes)]);
  const baselineMs = Date.now() - t;
  const baselinePeak = process.memoryUsage().rss;

  const list = async (search: string) => {
    const s = Date.now();
    await store.repos.contacts.list({ organizationId: org, search }, { limit: 20, offset: 0 });
    return Date.now() - s;
  };
  const raw = async (search: string) => {
    const s = Date.now();
    await db.knex.raw(
      `select * from contacts where organization_id = ? and (lower(display_name) like ? or primary_email like ? or primary_phone like ?) order by last_seen_at desc limit 20`,
      [org, `%${search}%`, `%${search}%`, `%${search}%`],
    );
    return Date.now() - s;
  };
  const terms = Array.from({ length: SEARCHES }, (_, i) => (i % 2 ? `person${(i * 7919) % N}` : names[i % 10].toLowerCase()));
  const useCase: number[] = [];
  const baseline: number[] = [];
  for (const term of terms) {
    useCase.push(await list(term));
    baseline.push(await raw(term));
  }
  const result = {
    machine: { cpus: os.cpus().length, node: process.version },
    contacts: N,
    attributeKeys: KEYS,
    seedMs,
    export: {
      rowsPerSecond: Math.round(N / (exportMs / 1000)),
      ms: exportMs,
      megabytes: mb(bytes),
      peakRssGrowthMb: mb(peak - rss0),
      baselinePlainQuery: {
        rowsPerSecond: Math.round(N / (baselineMs / 1000)),
        peakRssGrowthMb: mb(baselinePeak - rssB),
        bytes: csv.length,
      },
    },
    search: {
      useCase: { p50: pct(useCase, 50), p95: pct(useCase, 95) },
      rawQuery: { p50: pct(baseline, 50), p95: pct(baseline, 95) },
    },
  };
  mkdirSync(join(__dirname, 'results'), { recursive: true });
  writeFileSync(join(__dirname, 'results', 'contacts.json'), JSON.stringify(result, null, 2));
  console.log(JSON.stringify(result, null, 2));
  await db.close();
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
