/**
 * Organization analytics (spec 4.12): overview with trends, daily points, per model, per agent, realtime.
 * The caller must be a member of the organization with the `analytics.read` permission (403 otherwise);
 * platform administrators may read any organization.
 */
import type { Actor } from '../identity/actor';
import { hasOrgPermission } from '../identity/policy';
import type { Clock } from '../ports/clock';
import type { RetrievalRecorder } from '../ports/retrieval-recorder';
import type { Store } from '../ports/store';
import { DomainError } from '../shared/errors';
import { type AnalyticsRange, daysOf, parseRange, previousPeriod, trendOf, wholeHourZone } from './analytics-range';
import { type AnalyticsFilter, type AnalyticsStore, type AnalyticsTotals, emptyTotals } from './analytics-store';

export interface AnalyticsDeps {
  store: Store;
  clock: Clock;
  analytics: AnalyticsStore;
  recorder: RetrievalRecorder;
}

export interface AnalyticsQuery {
  organizationId?: string;
  startDate?: string;
  endDate?: string;
  botId?: string;
  model?: string;
  timezone?: string;
}

/** Default window of the realtime view. */
export const REALTIME_DEFAULT_MINUTES = 15;

export async function requireAnalyticsReader(deps: Pick<AnalyticsDeps, 'store'>, actor: Actor, organizationId: string | undefined) {
  if (!organizationId)
    throw new DomainError('VALIDATION', 'organizationId is required', [{ field: 'organizationId', message: 'required' }]);
  if (actor.platformRole === 'superadmin') return organizationId;
  const membership = await deps.store.repos.memberships.find(organizationId, actor.userId);
  if (!membership) throw new DomainError('FORBIDDEN', 'You are not a member of this organization');
  if (!hasOrgPermission(membership.role, 'analytics.read'))
    throw new DomainError('FORBIDDEN', `Your role (${membership.role}) does not allow reading analytics`);
  return organizationId;
}

async function scope(deps: AnalyticsDeps, actor: Actor, q: AnalyticsQuery): Promise<{ filter: AnalyticsFilter; range: AnalyticsRange }> {
  const organizationId = await requireAnalyticsReader(deps, actor, q.organizationId);
  const range = parseRange(q);
  return { filter: { organizationId, agentId: q.botId || undefined, model: q.model || undefined }, range };
}

const money = (x: number) => Math.round(x * 1e8) / 1e8;
const averageMs = (t: AnalyticsTotals) => (t.responseCount ? Math.round(t.responseMsSum / t.responseCount) : 0);

export async function analyticsOverview(deps: AnalyticsDeps, actor: Actor, q: AnalyticsQuery) {
  const { filter, range } = await scope(deps, actor, q);
  const [cur, prev] = await Promise.all([deps.analytics.totals(filter, range), deps.analytics.totals(filter, previousPeriod(range))]);
  return {
    totalConversations: trendOf(cur.conversations, prev.conversations),
    totalMessages: trendOf(cur.messages, prev.messages),
    totalTokens: trendOf(cur.tokens, prev.tokens),
    totalCost: trendOf(money(cur.costUsd), money(prev.costUsd)),
    averageResponseTime: trendOf(averageMs(cur), averageMs(prev)),
  };
}

export async function analyticsDaily(deps: AnalyticsDeps, actor: Actor, q: AnalyticsQuery) {
  const { filter, range } = await scope(deps, actor, q);
  const rows = await deps.analytics.daily(filter, range, range.timeZone, wholeHourZone(range));
  const byDate = new Map(rows.map((r) => [r.date, r]));
  return daysOf(range).map((date) => {
    const t = byDate.get(date) ?? { ...emptyTotals(), date };
    return {
      date,
      conversations: t.conversations,
      messages: t.messages,
      tokens: t.tokens,
      cost: money(t.costUsd),
      averageResponseTime: averageMs(t),
    };
  });
}

export async function analyticsByModel(deps: AnalyticsDeps, actor: Actor, q: AnalyticsQuery) {
  const { filter, range } = await scope(deps, actor, q);
  const rows = await deps.analytics.byModel(filter, range);
  return rows.map((r) => ({
    model: r.model,
    conversations: r.conversations,
    messages: r.messages,
    tokens: r.tokens,
    cost: money(r.costUsd),
    averageResponseTime: averageMs(r),
  }));
}

export async function analyticsByAgent(deps: AnalyticsDeps, actor: Actor, q: AnalyticsQuery) {
  const { filter, range } = await scope(deps, actor, q);
  const rows = await deps.analytics.byAgent(filter, range);
  return rows.map((r) => ({
    botId: r.agentId,
    name: r.name,
    conversations: r.conversations,
    messages: r.messages,
    tokens: r.tokens,
    cost: money(r.costUsd),
    averageResponseTime: averageMs(r),
  }));
}

export async function analyticsRealtime(deps: AnalyticsDeps, actor: Actor, q: { organizationId?: string; since?: string }) {
  const organizationId = await requireAnalyticsReader(deps, actor, q.organizationId);
  const now = deps.clock.now();
  let since = new Date(now.getTime() - REALTIME_DEFAULT_MINUTES * 60_000);
  if (q.since) {
    since = new Date(q.since);
    if (Number.isNaN(since.getTime()))
      throw new DomainError('VALIDATION', 'since must be an ISO 8601 date-time', [{ field: 'since', message: 'invalid date-time' }]);
  }
  const t = await deps.analytics.realtime(organizationId, since);
  return {
    since: since.toISOString(),
    until: now.toISOString(),
    conversations: t.conversations,
    messages: t.messages,
    activeUsers: t.activeUsers,
    responseTimes: { average: t.averageResponseTime, p95: t.p95ResponseTime },
  };
}
