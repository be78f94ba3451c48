import type { Knex } from 'knex';

import type {
  AnalyticsFilter,
  AnalyticsStore,
  AnalyticsTotals,
  DailyTotals,
  RealtimeTotals,
  Span,
} from '../../../core/analytics/analytics-store';
import { ceilHour, floorHour, HOUR_MS, MEASURES, rawFacts, sumMeasures } from './analytics-facts';

const ROLLUP = 'hourly';
/** Hours rolled up per statement by the job (keeps each transaction short on a large backfill). */
const ROLLUP_BATCH_HOURS = 24 * 7;

type Row = Record<string, unknown>;
const toTotals = (r: Row | undefined): AnalyticsTotals => ({
  conversations: Number(r?.conversations ?? 0),
  messages: Number(r?.messages ?? 0),
  tokens: Number(r?.tokens ?? 0),
  costUsd: Number(r?.cost_usd ?? 0),
  responseMsSum: Number(r?.response_ms_sum ?? 0),
  responseCount: Number(r?.response_count ?? 0),
});

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

  private async coveredUntil(): Promise<Date | null> {
    const row = await this.db('analytics_rollup_state').where({ name: ROLLUP }).first('covered_until');
    return row?.covered_until ? new Date(row.covered_until as string) : null;
  }

  /** Facts of the filter over the span, as a sub-select with its bindings. */
  private async facts(filter: AnalyticsFilter, span: Span, useRollup: boolean): Promise<{ sql: string; bindings: Knex.RawBinding[] }> {
    const covered = useRollup && this.options.rollup ? await this.coveredUntil() : null;
    const rFrom = ceilHour(span.from);
    const rTo = covered ? new Date(Math.min(floorHour(span.to).getTime(), covered.getTime())) : rFrom;
    const parts: { sql: string; bindings: Knex.RawBinding[] }[] = [];
    const raw = (from: Date, to: Date) => {
      if (to <= from) return;
      const f = rawFacts(filter.organizationId, from, to);
      parts.push({ sql: `SELECT ${COLUMNS} FROM (${f.sql}) raw`, bindings: f.bindings });
    };
    if (rTo > rFrom) {
      raw(span.from, rFrom);
      parts.push({
        sql: `SELECT hour AS at, agent_id, model, ${MEASURES.join(', ')} FROM analytics_hourly WHERE organization_id = ? AND hour >= ? AND hour < ?`,
        bindings: [filter.organizationId, rFrom, rTo],
      });
      raw(rTo, span.to);
    } else raw(span.from, span.to);
    if (parts.length === 0)
      parts.push({
        sql: `SELECT ${COLUMNS} FROM (${rawFacts(filter.organizationId, span.from, span.from).sql}) raw`,
        bindings: rawFacts(filter.organizationId, span.from, span.from).bindings,
      });
    const where: string[] = [];
    const bindings: Knex.RawBinding[] = parts.flatMap((p) => p.bindings);
    if (filter.agentId) {
      where.push('agent_id = ?');
      bindings.push(filter.agentId);
    }
    if (filter.model) {
      where.push('model = ?');
      bindings.push(filter.model);
    }
    const sql = `(SELECT * FROM (${parts.map((p) => p.sql).join(' UNION ALL ')}) u${where.length ? ` WHERE ${where.join(' AND ')}` : ''}) f`;
    return { sql, bindings };
  }

  async totals(filter: AnalyticsFilter, span: Span): Promise<AnalyticsTotals> {
    const f = await this.facts(filter, span, true);
    const { rows } = await this.db.raw(`SELECT ${sumMeasures()} FROM ${f.sql}`, f.bindings);
    return toTotals(rows[0]);
  }

  async daily(filter: AnalyticsFilter, span: Span, timeZone: string, hourly: boolean): Promise<DailyTotals[]> {
    const f = await this.facts(filter, span, hourly);
    const { rows } = await this.db.raw(
      `SELECT to_char((at AT TIME ZONE ?)::date, 'YYYY-MM-DD') AS date, ${sumMeasures()} FROM ${f.sql} GROUP BY 1 ORDER BY 1`,
      [timeZone, ...f.bindings],
    );
    return (rows as Row[]).map((r) => ({ ...toTotals(r), date: r.date as string }));
  }

  async byModel(filter: AnalyticsFilter, span: Span) {
    const f = await this.facts(filter, span, true);
    const { rows } = await this.db.raw(
      `SELECT model, ${sumMeasures()} FROM ${f.sql} WHERE model <> '' GROUP BY model ORDER BY cost_usd DESC, messages DESC, model`,
      f.bindings,
    );
    return (rows as Row[]).map((r) => ({ ...toTotals(r), model: r.model as string }));
  }

  async byAgent(filter: AnalyticsFilter, span: Span) {
    const f = await this.facts(filter, span, true);
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

  async refreshRollup(until: Date) {
    const target = floorHour(until);
    const covered = await this.coveredUntil();
    let from: Date | null = covered ? new Date(covered.getTime() - HOUR_MS) : null;
    if (!from) {
      const first = await this.db('conversations').min({ at: 'created_at' }).first();
      from = first?.at ? floorHour(new Date(first.at as string)) : null;
    }
    let hours = 0;
    for (let a = from; a && a < target;) {
      const b = new Date(Math.min(a.getTime() + ROLLUP_BATCH_HOURS * HOUR_MS, target.getTime()));
      await this.rollUp(a, b);
      hours += (b.getTime() - a.getTime()) / HOUR_MS;
      a = b;
    }
    if (!covered || target > covered) {
      await this.db('analytics_rollup_state')
        .insert({ name: ROLLUP, covered_until: target, updated_at: new Date() })
        .onConflict('name')
        .merge();
    }
    return { from: from ? from.toISOString() : null, to: target.toISOString(), hours };
  }

  private async rollUp(from: Date, to: Date) {
    const f = rawFacts(null, from, to);
    await this.db.transaction(async (trx) => {
      await trx('analytics_hourly').where('hour', '>=', from).andWhere('hour', '<', to).delete();
      await trx.raw(
        `INSERT INTO analytics_hourly (organization_id, hour, agent_id, model, ${MEASURES.join(', ')})
         SELECT organization_id, date_trunc('hour', at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC', agent_id, model, ${sumMeasures()}
           FROM (${f.sql}) raw GROUP BY 1, 2, 3, 4
         ON CONFLICT (organization_id, hour, agent_id, model) DO UPDATE SET
           ${MEASURES.map((m) => `${m} = excluded.${m}`).join(', ')}`,
        f.bindings,
      );
    });
  }
}
