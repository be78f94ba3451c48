import type { Knex } from 'knex';

import type {
  AnalyticsFilter,
  AnalyticsStore,
  AnalyticsTotals,
  DailyTotals,
  RealtimeTotals,
  Span,
} from '../../../core/analytics/analytics-store';
import { ceilDay, ceilHour, floorDay, floorHour, HOUR_MS, MEASURES, rawFacts, sumMeasures } from './analytics-facts';

const ROLLUP = 'hourly';
/**
 * Rollup rows come in four grouping sets: per agent and model, per agent (model ALL_MODELS), per model (agent
 * ALL_AGENTS) and the organization's total (both), so any filter reads one row per bucket.
 */
const ALL_AGENTS = '00000000-0000-0000-0000-000000000000';
const ALL_MODELS = '*';
const COVERED_CACHE_MS = 10_000;
/**
 * Hours rolled up per transaction by the job. The embedded store has one session, held by a transaction from
 * BEGIN to COMMIT: a week per transaction (the first choice) held it for seconds on a 1M-message backfill and
 * requests queued behind it; six hours keep each hold in the tens of milliseconds (analytics bench).
 */
export const ROLLUP_BATCH_HOURS = 6;
/**
 * After each batch the job waits as long as the batch took: a request makes several statements in turn, and with
 * batches back to back each of them queued behind a batch; a backfill taking twice as long is cheaper.
 */
const ROLLUP_PAUSE_RATIO = 1;

type Row = Record<string, unknown>;
const toTotals = (r: Row | undefined): AnalyticsTotals => ({
  conversations: Number(r?.conversations ?? 0),
  messages: Number(r?.messages ?? 0),
  tokens: Number(r?.tokens ?? 0),
  costUsd: Number(r?.cost_usd ?? 0),
  responseMsSum: Number(r?.response_ms_sum ?? 0),
  responseCount: Number(r?.response_count ?? 0),
});

/** date_trunc in UTC whatever the session's time zone. */
const UTC_TRUNC = (unit: string, column: string) => `date_trunc('${unit}', ${column} AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
const COLUMNS = `at, agent_id, model, ${MEASURES.join(', ')}`;

/**
 * Organization analytics by SQL. A range is read from the hourly rollup for the whole hours the job has
 * covered and from the raw messages and conversations for the rest (its partial first and last hours and
 * the recent hours not rolled up yet), so answers are exact whatever the job's lag.
 */
export class PostgresAnalyticsStore implements AnalyticsStore {
  readonly id = 'postgres';

  constructor(
    private readonly db: Knex,
    /** Off: every range from the raw tables (the benchmark's baseline, and the reference the conformance test compares to). */
    private readonly options: { rollup: boolean } = { rollup: true },
  ) {}

  private covered: { value: Date | null; readAt: number } | null = null;

  /**
   * Until when the rollup is complete, remembered for a few seconds: it only moves forward, and an older value
   * only means more is read from the raw tables (answers stay exact).
   */
  private async coveredUntil(): Promise<Date | null> {
    if (this.covered && Date.now() - this.covered.readAt < COVERED_CACHE_MS) return this.covered.value;
    const row = await this.db('analytics_rollup_state').where({ name: ROLLUP }).first('covered_until');
    const value = row?.covered_until ? new Date(row.covered_until as string) : null;
    this.covered = { value, readAt: Date.now() };
    return value;
  }

  /**
   * Facts of the filter over the span, as a sub-select with its bindings. `level`: 2 may read daily and hourly
   * rollups, 1 hourly only (days of a time zone), 0 raw tables only (zones with half-hour offsets).
   */
  private async facts(
    filter: AnalyticsFilter,
    span: Span,
    level: 0 | 1 | 2,
    groupBy: 'none' | 'model' | 'agent' = 'none',
  ): Promise<{ sql: string; bindings: Knex.RawBinding[] }> {
    const covered = level > 0 && this.options.rollup ? await this.coveredUntil() : null;
    const parts: { sql: string; bindings: Knex.RawBinding[] }[] = [];
    const rawWhere: string[] = [];
    const rawBindings: Knex.RawBinding[] = [];
    for (const [column, value] of [
      ['agent_id', filter.agentId],
      ['model', filter.model],
    ] as const) {
      if (!value) continue;
      rawWhere.push(`${column} = ?`);
      rawBindings.push(value);
    }
    const raw = (from: Date, to: Date) => {
      if (to <= from) return;
      const f = rawFacts(filter.organizationId, from, to);
      const where = rawWhere.length ? ` WHERE ${rawWhere.join(' AND ')}` : '';
      parts.push({ sql: `SELECT ${COLUMNS} FROM (${f.sql}) raw${where}`, bindings: [...f.bindings, ...rawBindings] });
    };
    // Rollup rows of the grouping sets: a dimension not grouped by is read from its "all" row.
    const agentSel =
      groupBy === 'agent'
        ? filter.agentId
          ? ['agent_id = ?', filter.agentId]
          : ['agent_id <> ?', ALL_AGENTS]
        : ['agent_id = ?', filter.agentId ?? ALL_AGENTS];
    const modelSel =
      groupBy === 'model'
        ? filter.model
          ? ['model = ?', filter.model]
          : ['model <> ?', ALL_MODELS]
        : ['model = ?', filter.model ?? ALL_MODELS];
    const rolled = (table: 'analytics_hourly' | 'analytics_daily', from: Date, to: Date) => {
      if (to <= from) return;
      const bucket = table === 'analytics_daily' ? 'day' : 'hour';
      parts.push({
        sql: `SELECT ${bucket} AS at, agent_id, model, ${MEASURES.join(', ')} FROM ${table}
               WHERE organization_id = ? AND ${bucket} >= ? AND ${bucket} < ? AND ${agentSel[0]} AND ${modelSel[0]}`,
        bindings: [filter.organizationId, from, to, agentSel[1], modelSel[1]],
      });
    };
    const hFrom = ceilHour(span.from);
    const hTo = covered ? new Date(Math.min(floorHour(span.to).getTime(), covered.getTime())) : hFrom;
    if (hTo > hFrom) {
      raw(span.from, hFrom);
      const dFrom = ceilDay(hFrom);
      const dTo = floorDay(hTo);
      if (level === 2 && dTo > dFrom) {
        rolled('analytics_hourly', hFrom, dFrom);
        rolled('analytics_daily', dFrom, dTo);
        rolled('analytics_hourly', dTo, hTo);
      } else rolled('analytics_hourly', hFrom, hTo);
      raw(hTo, span.to);
    } else raw(span.from, span.to);
    if (parts.length === 0) {
      const f = rawFacts(filter.organizationId, span.from, span.from);
      parts.push({ sql: `SELECT ${COLUMNS} FROM (${f.sql}) raw`, bindings: f.bindings });
    }
    return { sql: `(${parts.map((p) => p.sql).join(' UNION ALL ')}) f`, bindings: parts.flatMap((p) => p.bindings) };
  }

  async totals(filter: AnalyticsFilter, span: Span): Promise<AnalyticsTotals> {
    const f = await this.facts(filter, span, 2);
    const { rows } = await this.db.raw(`SELECT ${sumMeasures()} FROM ${f.sql}`, f.bindings);
    return toTotals(rows[0]);
  }

  async daily(filter: AnalyticsFilter, span: Span, timeZone: string, hourly: boolean): Promise<DailyTotals[]> {
    const f = await this.facts(filter, span, timeZone === 'UTC' ? 2 : hourly ? 1 : 0);
    const { rows } = await this.db.raw(
      `SELECT to_char((at AT TIME ZONE ?)::date, 'YYYY-MM-DD') AS date, ${sumMeasures()} FROM ${f.sql} GROUP BY 1 ORDER BY 1`,
      [timeZone, ...f.bindings],
    );
    return (rows as Row[]).map((r) => ({ ...toTotals(r), date: r.date as string }));
  }

  async byModel(filter: AnalyticsFilter, span: Span) {
    const f = await this.facts(filter, span, 2, 'model');
    const { rows } = await this.db.raw(
      `SELECT model, ${sumMeasures()} FROM ${f.sql} WHERE model <> '' GROUP BY model ORDER BY cost_usd DESC, messages DESC, model`,
      f.bindings,
    );
    return (rows as Row[]).map((r) => ({ ...toTotals(r), model: r.model as string }));
  }

  async byAgent(filter: AnalyticsFilter, span: Span) {
    const f = await this.facts(filter, span, 2, 'agent');
    const { rows } = await this.db.raw(
      `SELECT g.*, a.name FROM (SELECT agent_id, ${sumMeasures()} FROM ${f.sql} GROUP BY agent_id) g
         LEFT JOIN agents a ON a.id = g.agent_id
        ORDER BY g.messages DESC, g.agent_id`,
      f.bindings,
    );
    return (rows as Row[]).map((r) => ({ ...toTotals(r), agentId: r.agent_id as string, name: (r.name as string | null) ?? null }));
  }

  async realtime(organizationId: string, since: Date): Promise<RealtimeTotals> {
    const { rows } = await this.db.raw(
      `SELECT (SELECT count(*) FROM conversations WHERE organization_id = ? AND created_at >= ?)::bigint AS conversations,
              count(*)::bigint AS messages,
              count(DISTINCT coalesce(c.user_id::text, c.anonymous_id::text, c.id::text)) FILTER (WHERE m.role = 'user')::bigint AS active_users,
              coalesce(round(avg(m.response_ms)), 0)::bigint AS average_ms,
              coalesce(round(percentile_cont(0.95) WITHIN GROUP (ORDER BY m.response_ms)), 0)::bigint AS p95_ms
         FROM messages m JOIN conversations c ON c.id = m.conversation_id
        WHERE m.organization_id = ? AND m.created_at >= ?`,
      [organizationId, since, organizationId, since],
    );
    const r = rows[0] as Row;
    return {
      conversations: Number(r.conversations),
      messages: Number(r.messages),
      activeUsers: Number(r.active_users),
      averageResponseTime: Number(r.average_ms),
      p95ResponseTime: Number(r.p95_ms),
    };
  }

  private refreshing: Promise<{ from: string | null; to: string; hours: number }> | null = null;

  /**
   * One refresh at a time per process (the worker's timer and an explicit call share it); bounded batches with a
   * pause between them, so requests waiting for the database get it between two batches.
   */
  refreshRollup(until: Date, options: { batchHours?: number; pauseRatio?: number } = {}) {
    this.refreshing ??= this.refresh(until, options.batchHours ?? ROLLUP_BATCH_HOURS, options.pauseRatio ?? ROLLUP_PAUSE_RATIO).finally(
      () => {
        this.refreshing = null;
      },
    );
    return this.refreshing;
  }

  private async refresh(until: Date, batchHours: number, pauseRatio: number) {
    const target = floorHour(until);
    this.covered = null;
    const covered = await this.coveredUntil();
    let from: Date | null = covered ? new Date(covered.getTime() - HOUR_MS) : null;
    if (!from) {
      const first = await this.db('conversations').min({ at: 'created_at' }).first();
      from = first?.at ? floorHour(new Date(first.at as string)) : null;
    }
    let hours = 0;
    let marked = covered;
    for (let a = from; a && a < target;) {
      const b = new Date(Math.min(a.getTime() + batchHours * HOUR_MS, target.getTime()));
      // Progress is kept batch by batch: a restarted backfill goes on where it stopped, and reads use it at once.
      const advances = !covered || b > covered;
      const started = performance.now();
      await this.rollUp(a, b, advances);
      const took = performance.now() - started;
      if (advances) {
        marked = b;
        this.covered = { value: b, readAt: Date.now() };
      }
      await new Promise((resolve) => setTimeout(resolve, Math.min(took * pauseRatio, 2000)));
      hours += (b.getTime() - a.getTime()) / HOUR_MS;
      a = b;
    }
    if (!marked || target > marked) {
      await this.markCovered(this.db, target);
      this.covered = { value: target, readAt: Date.now() };
    }
    return { from: from ? from.toISOString() : null, to: target.toISOString(), hours };
  }

  private async markCovered(db: Knex, until: Date) {
    await db('analytics_rollup_state').insert({ name: ROLLUP, covered_until: until, updated_at: new Date() }).onConflict('name').merge();
  }

  private async rollUp(from: Date, to: Date, advances: boolean) {
    const f = rawFacts(null, from, to);
    const upsert = (table: string, bucket: string) =>
      `ON CONFLICT (organization_id, ${bucket}, agent_id, model) DO UPDATE SET ${MEASURES.map((m) => `${m} = excluded.${m}`).join(', ')}`;
    // The UTC days the batch touches are recomputed whole from their hours.
    const dFrom = floorDay(from);
    const dTo = ceilDay(to);
    await this.db.transaction(async (trx) => {
      await trx('analytics_hourly').where('hour', '>=', from).andWhere('hour', '<', to).delete();
      await trx.raw(
        `INSERT INTO analytics_hourly (organization_id, hour, agent_id, model, ${MEASURES.join(', ')})
         SELECT organization_id, hour, coalesce(agent_id, ?::uuid), coalesce(model, ?), ${sumMeasures()}
           FROM (SELECT ${UTC_TRUNC('hour', 'at')} AS hour, raw.* FROM (${f.sql}) raw) r
          GROUP BY GROUPING SETS ((organization_id, hour, agent_id, model), (organization_id, hour, agent_id),
                                  (organization_id, hour, model), (organization_id, hour))
          ${upsert('analytics_hourly', 'hour')}`,
        [ALL_AGENTS, ALL_MODELS, ...f.bindings],
      );
      await trx('analytics_daily').where('day', '>=', dFrom).andWhere('day', '<', dTo).delete();
      await trx.raw(
        `INSERT INTO analytics_daily (organization_id, day, agent_id, model, ${MEASURES.join(', ')})
         SELECT organization_id, ${UTC_TRUNC('day', 'hour')}, agent_id, model, ${sumMeasures()}
           FROM analytics_hourly WHERE hour >= ? AND hour < ? GROUP BY 1, 2, 3, 4 ${upsert('analytics_daily', 'day')}`,
        [dFrom, dTo],
      );
      if (advances) await this.markCovered(trx, to);
    });
  }
}
