import { PostgresAnalyticsStore } from '../../adapters/postgres/analytics/postgres.analytics-store';
import type { Database } from '../../adapters/postgres/database';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { parseRange, wholeHourZone } from '../../core/analytics/analytics-range';
import type { AnalyticsFilter, AnalyticsStore } from '../../core/analytics/analytics-store';
import { SEED_MODELS, seedConversations, type SeededOrganization, seedOrganization } from '../analytics/seed-analytics';

export interface AnalyticsStoreFixture {
  /** An empty database: the suite runs the migrations itself. */
  db: Database;
  teardown(): Promise<void>;
}

const SETUP_TIMEOUT_MS = 300_000;
/** Deterministic data set: 600 conversations of 6 messages over the 10 days before END. */
const END = new Date('2026-03-10T17:20:00Z');
const C = 600;
const P = 6;
const DAYS = 10;

/** Expected sums computed from the seeding formula, independently of SQL. */
function expected() {
  let tokens = 0;
  let cost = 0;
  let responseMs = 0;
  for (let g = 1; g <= C; g++)
    for (let k = 1; k < P; k += 2) {
      tokens += 100 + (g % 50) + 20 + k;
      cost += 0.0001 * (1 + (g % 3));
      responseMs += 200 + ((g * 7 + k) % 800);
    }
  return { conversations: C, messages: C * P, tokens, cost, responseMs, responses: (C * P) / 2 };
}

/**
 * The organization analytics SQL (spec 4.12, issue 12) on one store: exact numbers from a deterministic data
 * set (the same on PGlite and on a Postgres server), day boundaries in UTC and in time zones (whole-hour and
 * half-hour offsets), and the hourly rollup giving the same answers as the raw tables for any range and filter.
 */
export function analyticsStoreConformance(name: string, makeFixture: () => Promise<AnalyticsStoreFixture>): void {
  describe(`analytics store conformance: ${name}`, () => {
    let fx: AnalyticsStoreFixture;
    let org: SeededOrganization;
    let rolled: PostgresAnalyticsStore;
    let raw: AnalyticsStore;
    const whole = { from: new Date(END.getTime() - (DAYS + 1) * 86_400_000), to: new Date(END.getTime() + 3_600_000) };

    beforeAll(async () => {
      fx = await makeFixture();
      await migrate(fx.db.knex, [relationalMigrations]);
      org = await seedOrganization(fx.db.knex, 3);
      await seedConversations(fx.db.knex, org, { conversations: C, perConversation: P, days: DAYS, end: END, salt: 'conformance' });
      rolled = new PostgresAnalyticsStore(fx.db.knex);
      raw = new PostgresAnalyticsStore(fx.db.knex, { rollup: false });
    }, SETUP_TIMEOUT_MS);
    afterAll(async () => {
      await fx?.teardown();
    });

    it('sums the data set exactly, before and after the rollup', async () => {
      const e = expected();
      for (const store of [raw, rolled]) {
        const t = await store.totals({ organizationId: org.organizationId }, whole);
        expect(t).toMatchObject({
          conversations: e.conversations,
          messages: e.messages,
          tokens: e.tokens,
          responseMsSum: e.responseMs,
          responseCount: e.responses,
        });
        expect(t.costUsd).toBeCloseTo(e.cost, 8);
      }
      const r = await rolled.refreshRollup(new Date(END.getTime() + 2 * 3_600_000));
      expect(r.hours).toBeGreaterThan(DAYS * 24);
      const t = await rolled.totals({ organizationId: org.organizationId }, whole);
      expect(t).toMatchObject({ conversations: e.conversations, messages: e.messages, tokens: e.tokens });
      const [{ n }] = await fx.db.knex('analytics_hourly').count({ n: '*' });
      expect(Number(n)).toBeGreaterThan(0);
    });

    it('splits days at UTC midnight, or at the midnight of a time zone', async () => {
      const sum = (rows: { messages: number }[]) => rows.reduce((s, r) => s + r.messages, 0);
      const utc = await raw.daily({ organizationId: org.organizationId }, whole, 'UTC', true);
      expect(sum(utc)).toBe(C * P);
      expect(utc.map((d) => d.date)).toContain('2026-03-01');
      // Paris is UTC+1 in early March: a message at 23:30 UTC belongs to the next local day.
      const paris = await raw.daily({ organizationId: org.organizationId }, whole, 'Europe/Paris', true);
      expect(sum(paris)).toBe(C * P);
      const lateUtc = await fx.db.knex.raw(
        `SELECT count(*)::int AS n FROM messages WHERE organization_id = ? AND created_at >= '2026-03-05T23:00:00Z' AND created_at < '2026-03-06T23:00:00Z'`,
        [org.organizationId],
      );
      expect(paris.find((d) => d.date === '2026-03-06')?.messages).toBe(lateUtc.rows[0].n);
    });

    it('answers every range, zone and filter the same with and without the rollup', async () => {
      const filters: AnalyticsFilter[] = [
        { organizationId: org.organizationId },
        { organizationId: org.organizationId, agentId: org.agentIds[1] },
        { organizationId: org.organizationId, model: SEED_MODELS[2] },
      ];
      const ranges = [
        parseRange({ startDate: '2026-03-02', endDate: '2026-03-08' }),
        parseRange({ startDate: '2026-03-02T05:17:00Z', endDate: '2026-03-09T13:45:30Z' }),
        parseRange({ startDate: '2026-03-03', endDate: '2026-03-09', timezone: 'America/New_York' }),
        parseRange({ startDate: '2026-03-03', endDate: '2026-03-09', timezone: 'Asia/Kolkata' }),
      ];
      for (const f of filters)
        for (const r of ranges) {
          const hourly = wholeHourZone(r);
          expect(await rolled.totals(f, r)).toEqual(await raw.totals(f, r));
          expect(await rolled.daily(f, r, r.timeZone, hourly)).toEqual(await raw.daily(f, r, r.timeZone, hourly));
          expect(await rolled.byModel(f, r)).toEqual(await raw.byModel(f, r));
          expect(await rolled.byAgent(f, r)).toEqual(await raw.byAgent(f, r));
        }
      expect(wholeHourZone(ranges[3])).toBe(false);
    });

    it('per model and per agent partition the totals', async () => {
      const f = { organizationId: org.organizationId };
      const models = await rolled.byModel(f, whole);
      expect(models.map((m) => m.model).sort()).toEqual(SEED_MODELS);
      expect(models.reduce((s, m) => s + m.messages, 0)).toBe((C * P) / 2); // answers only
      expect(models.reduce((s, m) => s + m.conversations, 0)).toBe(C);
      const agents = await rolled.byAgent(f, whole);
      expect(agents.map((a) => a.agentId).sort()).toEqual([...org.agentIds].sort());
      expect(agents.reduce((s, a) => s + a.messages, 0)).toBe(C * P);
    });

    it('re-rolling the covered hours is idempotent', async () => {
      const f = { organizationId: org.organizationId };
      const before = await rolled.totals(f, whole);
      await rolled.refreshRollup(new Date(END.getTime() + 2 * 3_600_000));
      expect(await rolled.totals(f, whole)).toEqual(before);
    });

    it('a backfill in small batches answers exactly while half done, and goes on where it stopped', async () => {
      await fx.db.knex('analytics_hourly').delete();
      await fx.db.knex('analytics_daily').delete();
      await fx.db.knex('analytics_rollup_state').delete();
      const fresh = new PostgresAnalyticsStore(fx.db.knex);
      const halfway = new Date('2026-03-05T09:00:00Z');
      // One refresh at a time: a second call while one runs joins it.
      const first = fresh.refreshRollup(halfway, { batchHours: 5 });
      expect(fresh.refreshRollup(halfway, { batchHours: 5 })).toBe(first);
      await first;
      const state = await fx.db.knex('analytics_rollup_state').first('covered_until');
      expect(new Date(state.covered_until as string).toISOString()).toBe(halfway.toISOString());
      const f = { organizationId: org.organizationId, model: SEED_MODELS[1] };
      const range = parseRange({ startDate: '2026-03-01', endDate: '2026-03-09' });
      const check = async (store: PostgresAnalyticsStore) => {
        expect(await store.totals(f, range)).toEqual(await raw.totals(f, range));
        expect(await store.daily(f, range, 'UTC', true)).toEqual(await raw.daily(f, range, 'UTC', true));
        expect(await store.byAgent(f, range)).toEqual(await raw.byAgent(f, range));
      };
      await check(fresh);
      const rest = await new PostgresAnalyticsStore(fx.db.knex).refreshRollup(new Date(END.getTime() + 2 * 3_600_000), { batchHours: 5 });
      expect(rest.from).toBe(new Date(halfway.getTime() - 3_600_000).toISOString());
      await check(new PostgresAnalyticsStore(fx.db.knex));
    });
  });
}
