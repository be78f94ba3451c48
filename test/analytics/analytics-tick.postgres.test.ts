/**
 * The worker role's analytics tick on the real Postgres server with two workers (two pools on one database, each
 * with its own analytics adapters and tick leadership, as two worker processes have): ticks that overlap do not
 * fail (they did: a duplicate key on kb_chunk_priors_pkey) and only one of them does the work; and the priors'
 * write itself survives a concurrent run for the same knowledge base (a user's refresh beside a tick).
 *
 * The overlap is made certain, not hoped for: a test session holds kb_chunk_priors locked until every tick that
 * goes for the table waits on it (or has returned), then lets them all go at once.
 */
import { randomUUID } from 'node:crypto';

import pg from 'pg';

import { AdvisoryLockTickLeadership } from '../../adapters/postgres/advisory.tick-leadership';
import { type Database, openDatabase } from '../../adapters/postgres/database';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { createAnalyticsAdapters } from '../../app/analytics-adapters';
import { analyticsTick } from '../../app/analytics-services';
import type { AnalyticsAreaDeps } from '../../core/analytics/analytics-deps';
import { recomputePriors } from '../../core/analytics/learning';
import { createScratchDatabase, describeWithRealServices, type ScratchDatabase } from '../support/databases';
import { type RecordingTarget, seedRecordingTarget } from './recording-journal';

const CHUNKS = 24;

describeWithRealServices('analytics tick on a Postgres server shared by two workers (TEST_REAL_SERVICES=1)', () => {
  let scratch: ScratchDatabase;
  const pools: Database[] = [];
  let target: RecordingTarget;
  let chunkIds: string[];

  /** One worker: its own pool, analytics adapters and leadership, like a worker process. */
  async function worker() {
    const db = await openDatabase({ url: scratch.url, poolMax: 4 });
    pools.push(db);
    const analytics = createAnalyticsAdapters(db.knex, () => undefined);
    const clock = { now: () => new Date() };
    const leadership = new AdvisoryLockTickLeadership(db.knex);
    const deps = { clock, learning: analytics.learning, recorder: analytics.recorder } as unknown as AnalyticsAreaDeps;
    return { db, analytics, deps, tick: () => analyticsTick({ analytics, clock, leadership }, deps) };
  }

  /** Retrieval events over CHUNKS chunks of three documents of the first knowledge base: it needs new priors. */
  async function recordActivity(w: Awaited<ReturnType<typeof worker>>) {
    for (let n = 0; n < CHUNKS; n++)
      w.analytics.recorder.record({
        organizationId: target.organizationId,
        source: 'chat',
        agentId: target.agentId,
        conversationId: null,
        messageId: null,
        query: `q-${n}`,
        knowledgeBaseIds: [target.knowledgeBaseIds[0]],
        chunks: [{ chunkId: chunkIds[n]!, knowledgeBaseId: target.knowledgeBaseIds[0], documentId: documentIds[n % 3]!, score: 0.7 }],
        costUsd: 0.001,
        at: new Date().toISOString(),
      });
    await w.analytics.recorder.flush();
  }
  const documentIds = [randomUUID(), randomUUID(), randomUUID()];

  /**
   * Runs `ticks` while a test session holds kb_chunk_priors locked, released once each of them either waits on
   * a lock in the database or has returned (bounded: released anyway after 15 s).
   */
  async function overlapped<T>(ticks: (() => Promise<T>)[]): Promise<PromiseSettledResult<T>[]> {
    const blocker = new pg.Client({ connectionString: scratch.url });
    // Another session watches (pg_stat_activity is read once per transaction: the blocker's would stand still).
    const watcher = new pg.Client({ connectionString: scratch.url });
    await Promise.all([blocker.connect(), watcher.connect()]);
    try {
      await blocker.query('BEGIN');
      await blocker.query('LOCK TABLE kb_chunk_priors IN EXCLUSIVE MODE');
      let settled = 0;
      const running = ticks.map((t) =>
        t().finally(() => {
          settled++;
        }),
      );
      for (let i = 0; i < 300; i++) {
        const { rows } = await watcher.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'",
        );
        if (rows[0]!.n >= 1 && rows[0]!.n + settled >= ticks.length) break;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      await blocker.query('COMMIT');
      return await Promise.allSettled(running);
    } finally {
      await Promise.all([blocker.end(), watcher.end()]);
    }
  }

  const priorRows = (db: Database) =>
    db.knex('kb_chunk_priors').where({ knowledge_base_id: target.knowledgeBaseIds[0] }).orderBy('chunk_id').pluck('chunk_id');

  beforeAll(async () => {
    scratch = await createScratchDatabase('analytics_tick');
    const db = await openDatabase({ url: scratch.url });
    pools.push(db);
    await migrate(db.knex, [relationalMigrations]);
    target = await seedRecordingTarget(db.knex);
    const now = new Date();
    await db.knex('knowledge_documents').insert(
      documentIds.map((id, i) => ({
        id,
        organization_id: target.organizationId,
        knowledge_base_id: target.knowledgeBaseIds[0],
        title: `doc ${i}`,
        mime_type: 'text/plain',
        processing_status: 'completed',
        created_at: now,
        updated_at: now,
      })),
    );
    chunkIds = Array.from({ length: CHUNKS }, () => randomUUID()).sort();
  });
  afterAll(async () => {
    for (const db of pools) await db.close();
    await scratch?.drop();
  });

  it('two workers ticking at once: neither fails, and exactly one does the work', async () => {
    const [a, b] = [await worker(), await worker()];
    await recordActivity(a);
    const outcomes = await overlapped([a.tick, b.tick]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'fulfilled'))).toEqual(['fulfilled', 'fulfilled']);
    const reports = outcomes.map((o) => (o as PromiseFulfilledResult<{ ran: boolean; priorsRefreshed: number }>).value);
    expect(reports.map((r) => r.ran).sort()).toEqual([false, true]);
    expect(reports.find((r) => r.ran)?.priorsRefreshed).toBe(1);
    expect(await priorRows(a.db)).toEqual(chunkIds);
    // Done: the next tick of either finds nothing stale.
    expect(await b.tick()).toEqual({ ran: true, priorsRefreshed: 0 });
  });

  it('the priors of one knowledge base recomputed twice at the same moment: both succeed, one set of rows remains', async () => {
    const [a, b] = [await worker(), await worker()];
    await recordActivity(a);
    // A prior of a chunk no longer retrieved: a recompute removes it.
    await a.db.knex('kb_chunk_priors').insert({
      knowledge_base_id: target.knowledgeBaseIds[0],
      chunk_id: randomUUID(),
      document_id: documentIds[0],
      organization_id: target.organizationId,
      prior: 0.5,
      retrievals: 1,
      positive: 0,
      negative: 0,
      updated_at: new Date(),
    });
    const [kb, org] = [target.knowledgeBaseIds[0], target.organizationId];
    const outcomes = await overlapped([() => recomputePriors(a.deps, org, kb), () => recomputePriors(b.deps, org, kb)]);
    expect(outcomes.map((o) => (o.status === 'rejected' ? String(o.reason) : 'fulfilled'))).toEqual(['fulfilled', 'fulfilled']);
    expect(await priorRows(a.db)).toEqual(chunkIds);
  });
});
