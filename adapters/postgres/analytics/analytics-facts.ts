import type { Knex } from 'knex';

/**
 * The one definition of an analytics fact, shared by the hourly rollup job and the queries that read the part
 * of a range the rollup does not cover yet: one row per message (tokens, cost and response time of answers)
 * and one per conversation (under the model of its first answer).
 */
const SMALL_RANGE_MS = 24 * 3_600_000;

export interface FactsSql {
  sql: string;
  bindings: Knex.RawBinding[];
}

/**
 * Raw facts in [from, to), of one organization or (rollup job) of all. Columns: organization_id, at, agent_id,
 * model and the measures. A range of a day or less (a rollup batch, the partial edges of a read) looks each
 * message's conversation up by primary key; a join lets the planner hash every conversation of the store, right
 * for a long range but it made each 6-hour rollup batch scan them all.
 */
export function rawFacts(organizationId: string | null, from: Date, to: Date): FactsSql {
  const small = to.getTime() - from.getTime() <= SMALL_RANGE_MS;
  const org = (alias: string) => (organizationId ? `${alias}.organization_id = ? AND ` : '');
  const orgBinding = organizationId ? [organizationId] : [];
  const sql = `
    SELECT m.organization_id, m.created_at AS at,
           ${small ? '(SELECT c.agent_id FROM conversations c WHERE c.id = m.conversation_id)' : 'c.agent_id'} AS agent_id,
           coalesce(m.model, '') AS model,
           0 AS conversations, 1 AS messages, (m.prompt_tokens + m.completion_tokens)::bigint AS tokens, m.cost_usd,
           coalesce(m.response_ms, 0)::bigint AS response_ms_sum, (CASE WHEN m.response_ms IS NULL THEN 0 ELSE 1 END) AS response_count
      FROM messages m${small ? '' : ' JOIN conversations c ON c.id = m.conversation_id'}
     WHERE ${org('m')}m.created_at >= ? AND m.created_at < ?
    UNION ALL
    SELECT c.organization_id, c.created_at AS at, c.agent_id,
           coalesce((SELECT m2.model FROM messages m2
                      WHERE m2.conversation_id = c.id AND m2.role = 'assistant' AND m2.model IS NOT NULL
                      ORDER BY m2.created_at LIMIT 1), '') AS model,
           1, 0, 0::bigint, 0::numeric, 0::bigint, 0
      FROM conversations c
     WHERE ${org('c')}c.created_at >= ? AND c.created_at < ?`;
  return { sql, bindings: [...orgBinding, from, to, ...orgBinding, from, to] };
}

export const MEASURES = ['conversations', 'messages', 'tokens', 'cost_usd', 'response_ms_sum', 'response_count'] as const;

/** `sum(x)::<type> AS x` for every measure (numbers back from pg: bigint and numeric parsers are set). */
export const sumMeasures = (prefix = '') =>
  MEASURES.map((m) => `coalesce(sum(${prefix}${m}), 0)::${m === 'cost_usd' ? 'numeric' : 'bigint'} AS ${m}`).join(', ');

const HOUR_MS = 3_600_000;
export const floorHour = (d: Date) => new Date(Math.floor(d.getTime() / HOUR_MS) * HOUR_MS);
export const ceilHour = (d: Date) => new Date(Math.ceil(d.getTime() / HOUR_MS) * HOUR_MS);
const DAY_MS = 24 * HOUR_MS;
export const floorDay = (d: Date) => new Date(Math.floor(d.getTime() / DAY_MS) * DAY_MS);
export const ceilDay = (d: Date) => new Date(Math.ceil(d.getTime() / DAY_MS) * DAY_MS);
export { HOUR_MS };
