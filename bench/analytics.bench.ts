/**
 * Organization analytics at scale (issue 12), each figure next to a same-run baseline:
 *   1. 1,000,000 messages (100,000 conversations of 10 messages, 10 agents, 3 models) over 90 days in one
 *      organization, seeded by SQL (generate_series). Overview (five metrics and their previous period) and
 *      daily points for the 90 days, through the use cases, read from the rollups, against the same queries on
 *      the raw tables (rollup off). On the embedded store (PGlite on disk, inside the running platform as
 *      `npm start` runs it) and on the Postgres server.
 *   2. Embedded: p99 of light requests through the running platform (GET /api/auth/me, answered from the
 *      identity cache, and GET /api/organizations/:id/members, which reads the database) while the rollup
 *      backfill of those 90 days runs: in week-long transactions back to back (the first version), in 6-hour
 *      transactions back to back, and as the job runs it (6-hour transactions, each followed by a pause as long
 *      as it took); next to the same requests on the idle platform.
 *   3. Recording on the chat path: the buffered recorder's `record` with the crash-safe journal and without it,
 *      against awaiting the same rows inserted inline.
 *
 *   npx tsx bench/analytics.bench.ts       writes bench/results/analytics.json
 *   BENCH_CONVERSATIONS=20000 ...          a smaller data set (messages = 10 x conversations)
 *   BENCH_STORES=postgres                  one store only (embedded, postgres; default both)
 */
import { randomUUID } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import pg from 'pg';

import { BufferedRetrievalRecorder } from '../adapters/postgres/analytics/buffered.retrieval-recorder';
import { PostgresAnalyticsStore, ROLLUP_BATCH_HOURS } from '../adapters/postgres/analytics/postgres.analytics-store';
import { RetrievalJournal } from '../adapters/postgres/analytics/retrieval-journal';
import { type Database, openDatabase } from '../adapters/postgres/database';
import { KnexStore } from '../adapters/postgres/knex-store';
import { relationalMigrations } from '../adapters/postgres/migrations';
import { migrate } from '../adapters/postgres/migrator';
import { startPlatform } from '../app/platform';
import { analyticsDaily, type AnalyticsDeps, analyticsOverview } from '../core/analytics/organization-analytics';
import type { Actor } from '../core/identity/actor';
import type { RetrievalEvent } from '../core/ports/retrieval-recorder';
import { seedConversations, type SeededOrganization, seedOrganization } from '../test/analytics/seed-analytics';
import { autocannon, type Run as Load } from './support/autocannon';
import { benchConfig } from './support/bench-config';
import { summary } from './support/latency';

const CONVERSATIONS = Number(process.env.BENCH_CONVERSATIONS ?? 100_000);
const PER_CONVERSATION = 10;
const DAYS = 90;
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 30);
const RAW_SAMPLES = Number(process.env.BENCH_RAW_SAMPLES ?? 5);
const LOAD_SECONDS = 2;
const ROLLUP_LAG_MS = 5 * 60_000;

async function timed(n: number, work: () => Promise<unknown>): Promise<number[]> {
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const t = performance.now();
    await work();
    out.push(performance.now() - t);
  }
  return out;
}

async function seed(db: Database) {
  const t0 = performance.now();
  await migrate(db.knex, [relationalMigrations]);
  const org = await seedOrganization(db.knex, 10);
  const end = new Date(Date.now() - 3_600_000);
  await seedConversations(db.knex, org, { conversations: CONVERSATIONS, perConversation: PER_CONVERSATION, days: DAYS, end });
  await db.knex.raw('ANALYZE');
  return { org, seedSeconds: +((performance.now() - t0) / 1000).toFixed(1) };
}

/** Overview and daily for 90 days, rollup against raw; the rollup must be complete. */
async function queries(label: string, db: Database, org: SeededOrganization) {
  const rolled = new PostgresAnalyticsStore(db.knex);
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
  const dailyCheck = [await analyticsDaily(deps(rolled), actor, query), await analyticsDaily(deps(raw), actor, query)];
  if (JSON.stringify(dailyCheck[0]) !== JSON.stringify(dailyCheck[1])) throw new Error(`${label}: rollup and raw daily points differ`);
  const messages = check[0].totalMessages.value;

  await timed(3, () => analyticsOverview(deps(rolled), actor, query)); // warm-up
  const overview = summary(await timed(SAMPLES, () => analyticsOverview(deps(rolled), actor, query)));
  const daily = summary(await timed(SAMPLES, () => analyticsDaily(deps(rolled), actor, query)));
  const overviewRaw = summary(await timed(RAW_SAMPLES, () => analyticsOverview(deps(raw), actor, query)));
  const dailyRaw = summary(await timed(RAW_SAMPLES, () => analyticsDaily(deps(raw), actor, query)));
  return {
    store: label,
    messagesInRange: messages,
    hourlyRows: Number(hourlyRows),
    overview,
    overviewRawBaseline: overviewRaw,
    overviewSpeedup: +(overviewRaw.p50Ms / overview.p50Ms).toFixed(1),
    daily90Days: daily,
    dailyRawBaseline: dailyRaw,
    dailySpeedup: +(dailyRaw.p50Ms / daily.p50Ms).toFixed(1),
  };
}

/** Postgres server: seed, backfill, queries. */
async function scale(label: string, db: Database) {
  const { org, seedSeconds } = await seed(db);
  const t1 = performance.now();
  await new PostgresAnalyticsStore(db.knex).refreshRollup(new Date(Date.now() - ROLLUP_LAG_MS));
  const rollupBackfillSeconds = +((performance.now() - t1) / 1000).toFixed(1);
  const out = { ...(await queries(label, db, org)), seedSeconds, rollupBackfillSeconds };
  process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
  return out;
}

const loadOf = (runs: Load[]) => ({
  windows: runs.length,
  worstWindowP99Ms: Math.max(...runs.map((r) => r.p99Ms)),
  medianWindowP99Ms: [...runs.map((r) => r.p99Ms)].sort((a, b) => a - b)[Math.floor(runs.length / 2)],
  maxMs: Math.max(...runs.map((r) => r.maxMs)),
  requestsPerSecond: Math.round(runs.reduce((s, r) => s + r.requestsPerSecond, 0) / runs.length),
  non2xx: runs.reduce((s, r) => s + r.non2xx, 0),
});

/**
 * Embedded: the data is seeded into the platform's PGlite folder before boot (marked rolled up, so the worker's
 * timer has nothing to do), then the platform runs and the rollup is rebuilt from scratch while light requests
 * are measured.
 */
async function embedded() {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-analytics-'));
  try {
    const lite = await openDatabase({ dataDir });
    const { org, seedSeconds } = await seed(lite);
    await lite.knex('analytics_rollup_state').insert({ name: 'hourly', covered_until: new Date(), updated_at: new Date() });
    await lite.close();

    const config = benchConfig(dataDir, {});
    const platform = await startPlatform(config);
    const infra = platform.infrastructure;
    try {
      const r = await fetch(`${platform.gatewayUrl}/api/auth/register`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ email: `bench-${randomUUID().slice(0, 8)}@example.com`, password: `pw-${randomUUID()}` }),
      });
      const body = (await r.json()) as { data: { accessToken: string; user: { organizations: { id: string }[] } } };
      const auth = { authorization: `Bearer ${body.data.accessToken}` };
      const me = `${platform.gatewayUrl}/api/auth/me`;
      const members = `${platform.gatewayUrl}/api/organizations/${body.data.user.organizations[0]?.id}/members`;
      await autocannon(me, auth, 1);
      await autocannon(members, auth, 1);
      const idle = { authMe: await autocannon(me, auth, LOAD_SECONDS * 2), members: await autocannon(members, auth, LOAD_SECONDS * 2) };

      const during = async (batchHours: number, pauseRatio?: number) => {
        await infra.db.knex('analytics_hourly').delete();
        await infra.db.knex('analytics_daily').delete();
        await infra.db.knex('analytics_rollup_state').delete();
        const t = performance.now();
        let done = false;
        const backfill = infra.analytics.store
          .refreshRollup(new Date(Date.now() - ROLLUP_LAG_MS), { batchHours, pauseRatio })
          .finally(() => {
            done = true;
          });
        const meRuns: Load[] = [];
        const memberRuns: Load[] = [];
        // Alternate windows of each request until the backfill is over.
        while (!done) {
          meRuns.push(await autocannon(me, auth, LOAD_SECONDS));
          if (!done) memberRuns.push(await autocannon(members, auth, LOAD_SECONDS));
        }
        await backfill;
        const seconds = +((performance.now() - t) / 1000).toFixed(1);
        return {
          batchHours,
          pauseRatio: pauseRatio ?? 'default',
          backfillSeconds: seconds,
          authMe: loadOf(meRuns),
          members: memberRuns.length ? loadOf(memberRuns) : null,
        };
      };
      // The first version (a week per transaction, back to back), small transactions alone, and the job as it is.
      const weekBatches = await during(24 * 7, 0);
      const smallBatches = await during(ROLLUP_BATCH_HOURS, 0);
      const jobBatches = await during(ROLLUP_BATCH_HOURS);
      const lightRequests = {
        idle,
        duringBackfillWeekTransactions: weekBatches,
        duringBackfillSmallTransactionsNoPause: smallBatches,
        duringBackfillJob: jobBatches,
      };
      process.stdout.write(`${JSON.stringify(lightRequests, null, 2)}\n`);

      const out = {
        ...(await queries('PGlite (embedded, on disk, in the running platform)', infra.db, org)),
        seedSeconds,
        rollupBackfillSeconds: jobBatches.backfillSeconds,
        lightRequests,
      };
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return { scale: out, recording: await recording(infra.db) };
    } finally {
      await platform.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
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
  const journalDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-journal-'));
  const run = async (recorder: BufferedRetrievalRecorder) => {
    const times: number[] = [];
    for (let i = 0; i < n; i++) {
      const e = event();
      const t = performance.now();
      recorder.record(e);
      times.push(performance.now() - t);
      if (i % 100 === 99) await new Promise((r) => setImmediate(r)); // let batches go out as under real traffic
    }
    await recorder.close();
    return summary(times);
  };
  const buffered = await run(new BufferedRetrievalRecorder(db.knex));
  const journaled = await run(new BufferedRetrievalRecorder(db.knex, { journal: new RetrievalJournal({ dir: journalDir }) }));
  rmSync(journalDir, { recursive: true, force: true });
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
  return {
    recordJournaled: journaled,
    recordBufferedNoJournal: buffered,
    insertInlineBaseline: summary(inline),
    rowsWritten: Number(rows),
  };
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
  const results: Record<string, unknown> = {
    conversations: CONVERSATIONS,
    messages: CONVERSATIONS * PER_CONVERSATION,
    days: DAYS,
    machine: `${os.cpus().length} cores, load average ${os
      .loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} at start`,
  };
  const stores = (process.env.BENCH_STORES ?? 'postgres,embedded').split(',');
  if (stores.includes('embedded')) {
    const e = await embedded();
    results.embedded = e.scale;
    results.recording = e.recording;
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
