/**
 * Read side of the organization analytics (spec 4.12), computed by SQL from recorded conversations and messages
 * plus an hourly rollup that a background job maintains. Implemented by the relational store's adapter.
 */
export interface AnalyticsFilter {
  organizationId: string;
  agentId?: string;
  model?: string;
}

export interface Span {
  from: Date;
  to: Date;
}

/**
 * Sums over a range. A message counts once (user and assistant messages); tokens and cost are the assistant
 * messages'; a conversation counts in the range it was created in, under the model of its first answer.
 * With a `model` filter, only that model's answers (and conversations) count.
 */
export interface AnalyticsTotals {
  conversations: number;
  messages: number;
  tokens: number;
  costUsd: number;
  responseMsSum: number;
  responseCount: number;
}

export interface DailyTotals extends AnalyticsTotals {
  date: string;
}

export interface RealtimeTotals {
  conversations: number;
  messages: number;
  activeUsers: number;
  averageResponseTime: number;
  p95ResponseTime: number;
}

export interface AnalyticsStore {
  totals(filter: AnalyticsFilter, span: Span): Promise<AnalyticsTotals>;
  /** Per local day of `timeZone`; `hourly` false when the zone's offset is not whole hours (rollups then skipped). */
  daily(filter: AnalyticsFilter, span: Span, timeZone: string, hourly: boolean): Promise<DailyTotals[]>;
  byModel(filter: AnalyticsFilter, span: Span): Promise<(AnalyticsTotals & { model: string })[]>;
  byAgent(filter: AnalyticsFilter, span: Span): Promise<(AnalyticsTotals & { agentId: string; name: string | null })[]>;
  realtime(organizationId: string, since: Date): Promise<RealtimeTotals>;
  /**
   * Rolls up every whole hour ending before `until` that is not rolled up yet (and re-rolls the last one), in
   * transactions of `batchHours` hours, pausing `pauseRatio` times as long as a batch took after each.
   */
  refreshRollup(
    until: Date,
    options?: { batchHours?: number; pauseRatio?: number },
  ): Promise<{ from: string | null; to: string; hours: number }>;
}

export const emptyTotals = (): AnalyticsTotals => ({
  conversations: 0,
  messages: 0,
  tokens: 0,
  costUsd: 0,
  responseMsSum: 0,
  responseCount: 0,
});
