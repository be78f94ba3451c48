/**
 * Organization analytics at scale (issue 12), each figure next to a same-run baseline:
 *   1. 1,000,000 messages (100,000 conversations of 10 messages, 10 agents, 3 models) over 90 days in one
 *      organization, seeded by SQL (generate_series). Overview (five metrics and their previous period) and
 *      daily points for the 90 days, through the use cases, read from the hourly rollup, against the same
 *      queries on the raw tables (rollup off). On the embedded store (PGlite) and on the Postgres server.
 *   2. Recording on the chat path: the buffered recorder's `record` (all a chat turn pays), against awaiting
 *      the same rows inserted inline.
 *
 *   npx tsx bench/analytics.bench.ts       writes bench/results/analytics.json
 *   BENCH_CONVERSATIONS=20000 ...          a smaller data set (messages = 10 x conversations)
 *   BENCH_STORES=postgres                  one store only (embedded, postgres; default both)
 */
import { randomUUID } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';

import pg from 'pg';

import { BufferedRetrievalRecorder } from '../adapters/postgres/analytics/buffered.retrieval-recorder';
import { PostgresAnalyticsStore } from '../adapters/postgres/analytics/postgres.analytics-store';
import { type Database, openDatabase } from '../adapters/postgres/database';
import { KnexStore } from '../adapters/postgres/knex-store';
import { relationalMigrations } from '../adapters/postgres/migrations';
import { migrate } from '../adapters/postgres/migrator';
import { analyticsDaily, type AnalyticsDeps, analyticsOverview } from '../core/analytics/organization-analytics';
import type { Actor } from '../core/identity/actor';
import type { RetrievalEvent } from '../core/ports/retrieval-recorder';
import { seedConversations, seedOrganization } from '../test/analytics/seed-analytics';
import { summary } from './support/latency';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);
const PER_CONVERSATION = 10;
const DAYS = 90;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const RAW_SAMPLES = Number(process.env.BENCH_RAW_SAMPLES ?? 5);

async function timed(n: number, work: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await work();
    out.push(performance.now() - t);
  }
  return out;
}

async function scale(label: string, db: Database) {
  const t0 = performance.now();
  await migrate(db.knex, [relationalMigrations]);
  const org = await seedOrganization(db.knex, 10);
  const end = new Date(Date.now() - 3_600_000);
  await seedConversations(db.knex, org, { conversations: CONVERSATIONS, perConversation: PER_CONVERSATION, days: DAYS, end });
  await db.knex.raw('ANALYZE');
  const seedMs = performance.now() - t0;
  const rolled = new PostgresAnalyticsStore(db.knex);
  const t1 = performance.now();
  await rolled.refreshRollup(new Date(Date.now() - 5 * 60_000));
  const rollupMs = performance.now() - t1;
  const [{ n: hourlyRows }] = await db.knex('analytics_hourly').count({ n: '*' });

  const actor: Actor = {
    userId: org.userId,
    email: 'seed@example.com',
    displayName: 'Seed',
    platformRole: 'user',
    organizationId: org.organizationId,
    orgRole: 'owner',
  };
  const deps = (store: PostgresAnalyticsStore): AnalyticsDeps => ({
    store: new KnexStore(db.knex),
    clock: { now: () => new Date() },
    analytics: store,
    recorder: { record: () => undefined, flush: async () => undefined },
  });
  const query = {
    organizationId: org.organizationId,
    startDate: new Date(Date.now() - DAYS * 86_400_000).toISOString().slice(0, 10),
    endDate: new Date().toISOString().slice(0, 10),
  };
  const raw = new PostgresAnalyticsStore(db.knex, { rollup: false });
  const check = [await analyticsOverview(deps(rolled), actor, query), await analyticsOverview(deps(raw), actor, query)];
  if (JSON.stringify(check[0]) !== JSON.stringify(check[1])) throw new Error(`${label}: rollup and raw overviews differ`);
  const messages = check[0].totalMessages.value;

  await timed(3, () => analyticsOverview(deps(rolled), actor, query)); // warm-up
  const overview = summary(await timed(SAMPLES, () => analyticsOverview(deps(rolled), actor, query)));
  const daily = summary(await timed(SAMPLES, () => analyticsDaily(deps(rolled), actor, query)));
  const overviewRaw = summary(await timed(RAW_SAMPLES, () => analyticsOverview(deps(raw), actor, query)));
  const dailyRaw = summary(await timed(RAW_SAMPLES, () => analyticsDaily(deps(raw), actor, query)));
  const out = {
    store: label,
    messagesInRange: messages,
    seedSeconds: +(seedMs / 1000).toFixed(1),
    rollupBackfillSeconds: +(rollupMs / 1000).toFixed(1),
    hourlyRows: Number(hourlyRows),
    overview,
    overviewRawBaseline: overviewRaw,
    overviewSpeedup: +(overviewRaw.p50Ms / overview.p50Ms).toFixed(1),
    daily90Days: daily,
    dailyRawBaseline: dailyRaw,
    dailySpeedup: +(dailyRaw.p50Ms / daily.p50Ms).toFixed(1),
  };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  return out;
}

async function recording(db: Database) {
  const org = await seedOrganization(db.knex, 1);
  const kbId = randomUUID();
  const now = new Date();
  await db
    .knex('knowledge_bases')
    .insert({ id: kbId, organization_id: org.organizationId, name: 'Bench', created_at: now, updated_at: now });
  const event = (): RetrievalEvent => ({
    organizationId: org.organizationId,
    source: 'chat',
    agentId: org.agentIds[0],
    conversationId: randomUUID(),
    messageId: randomUUID(),
    query: 'How long do refunds take?',
    knowledgeBaseIds: [kbId],
    chunks: [0, 1, 2].map((i) => ({ chunkId: randomUUID(), knowledgeBaseId: kbId, documentId: randomUUID(), score: 0.5 + i / 10 })),
    costUsd: 0.0004,
    at: new Date().toISOString(),
  });
  const n = 2000;
  const recorder = new BufferedRetrievalRecorder(db.knex);
  const buffered: number[] = [];
  for (let i = 0; i < n; i++) {
    const e = event();
    const t = performance.now();
    recorder.record(e);
    buffered.push(performance.now() - t);
    if (i % 100 === 99) await new Promise((r) => setImmediate(r)); // let batches go out as under real traffic
  }
  await recorder.flush();
  // Baseline: the same rows written inline, awaited on the chat path.
  const inline: number[] = [];
  const direct = new BufferedRetrievalRecorder(db.knex, { maxBuffered: 1 });
  for (let i = 0; i < 300; i++) {
    const e = event();
    const t = performance.now();
    direct.record(e);
    await direct.flush();
    inline.push(performance.now() - t);
  }
  const [{ n: rows }] = await db.knex('analytics_kb_queries').count({ n: '*' });
  return { recordBuffered: summary(buffered), insertInlineBaseline: summary(inline), rowsWritten: Number(rows) };
}

const PG_ADMIN = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';

/** A scratch database on the Postgres server, dropped afterwards. */
async function scratchDatabase() {
  const name = `ap_bench_analytics_${randomUUID().slice(0, 8)}`;
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

async function main() {
  const results: Record<string, unknown> = { conversations: CONVERSATIONS, messages: CONVERSATIONS * PER_CONVERSATION, days: DAYS };
  const stores = (process.env.BENCH_STORES ?? 'postgres,embedded').split(',');
  if (stores.includes('embedded')) {
    const lite = await openDatabase({ memory: true });
    try {
      results.embedded = await scale('PGlite (embedded)', lite);
      results.recording = await recording(lite);
    } finally {
      await lite.close();
    }
  }
  if (stores.includes('postgres'))
    try {
      const scratch = await scratchDatabase();
      const pgdb = await openDatabase({ url: scratch.url });
      try {
        results.postgres = await scale('Postgres server', pgdb);
      } finally {
        await pgdb.close();
        await scratch.drop();
      }
    } catch (e) {
      results.postgres = { skipped: `no Postgres server: ${(e as Error).message}` };
    }
  process.stdout.write(`${JSON.stringify(results.recording, null, 2)}\n`);
  const file = path.join(__dirname, 'results', 'analytics.json');
  await mkdir(path.dirname(file), { recursive: true });
  // A run of one store keeps the other store's figures from an earlier run.
  const earlier = await readFile(file, 'utf8').then(JSON.parse, () => ({}));
  await writeFile(file, `${JSON.stringify({ ...earlier, ...results, at: new Date().toISOString() }, null, 2)}\n`);
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
