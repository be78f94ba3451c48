/**
 * Knowledge-base analytics (spec 4.6): one view per `section`, or the dashboard of all eight views when
 * `section` is omitted; `learning` returns the learning readiness. Computed by SQL from what chat turns and
 * searches recorded (core/ports/retrieval-recorder.ts) and from message feedback, over the last `days` days.
 * Needs read access to the knowledge base (another organization's answers 404).
 */
import type { Actor } from '../identity/actor';
import { knowledgeBaseFor } from '../knowledge/kb-access';
import { DomainError } from '../shared/errors';
import { type LearningDeps, learningReadiness } from './learning';

export const KB_ANALYTICS_SECTIONS = [
  'trends',
  'agents',
  'gaps',
  'content',
  'costs',
  'resource-performance',
  'feedback-gaps',
  'funnel',
  'learning',
] as const;
export type KbAnalyticsSection = (typeof KB_ANALYTICS_SECTIONS)[number];

export const KB_ANALYTICS_DEFAULT_DAYS = 30;
export const KB_ANALYTICS_MAX_DAYS = 365;
export const KB_ANALYTICS_DEFAULT_LIMIT = 10;
export const KB_ANALYTICS_MAX_LIMIT = 100;

/** Which response key each section fills. */
const SECTION_KEYS = {
  trends: 'queryTrends',
  agents: 'agentUsageBreakdown',
  gaps: 'knowledgeGaps',
  content: 'contentUtilization',
  costs: 'costAttribution',
  'resource-performance': 'resourcePerformance',
  'feedback-gaps': 'feedbackGaps',
  funnel: 'conversionFunnel',
} as const;

type DataSection = keyof typeof SECTION_KEYS;

export interface KbScope {
  organizationId: string;
  knowledgeBaseId: string;
  since: Date;
  until: Date;
  limit: number;
}

/** Each method computes one view (plain JSON objects, documented in the OpenAPI description). */
export type KbAnalyticsStore = Record<(typeof SECTION_KEYS)[DataSection], (scope: KbScope) => Promise<unknown>>;

export interface KbAnalyticsDeps extends LearningDeps {
  kbAnalytics: KbAnalyticsStore;
}

export interface KbAnalyticsQuery {
  section?: string;
  days?: number;
  limit?: number;
}

function checkSection(section: string | undefined): KbAnalyticsSection | null {
  if (section === undefined || section === '') return null;
  if (!(KB_ANALYTICS_SECTIONS as readonly string[]).includes(section))
    throw new DomainError('VALIDATION', `Unknown section ${section}; use one of ${KB_ANALYTICS_SECTIONS.join(', ')}`, [
      { field: 'section', message: `must be one of ${KB_ANALYTICS_SECTIONS.join(', ')}` },
    ]);
  return section as KbAnalyticsSection;
}

function bounded(field: string, value: number | undefined, fallback: number, max: number): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < 1 || value > max)
    throw new DomainError('VALIDATION', `${field} must be an integer from 1 to ${max}`, [{ field, message: `1-${max}` }]);
  return value;
}

export async function knowledgeBaseAnalytics(deps: KbAnalyticsDeps, actor: Actor, knowledgeBaseId: string, q: KbAnalyticsQuery) {
  const section = checkSection(q.section);
  const days = bounded('days', q.days, KB_ANALYTICS_DEFAULT_DAYS, KB_ANALYTICS_MAX_DAYS);
  const limit = bounded('limit', q.limit, KB_ANALYTICS_DEFAULT_LIMIT, KB_ANALYTICS_MAX_LIMIT);
  const kb = await knowledgeBaseFor(deps.store.repos, actor, knowledgeBaseId, 'read');
  await deps.recorder.flush(); // this process's buffered events are part of the answer
  const until = deps.clock.now();
  const scope: KbScope = {
    organizationId: kb.organizationId,
    knowledgeBaseId: kb.id,
    since: new Date(until.getTime() - days * 86_400_000),
    until,
    limit,
  };
  if (section === 'learning') return learningReadiness(deps, kb.organizationId, kb.id, scope.since);
  const sections: DataSection[] = section ? [section] : (Object.keys(SECTION_KEYS) as DataSection[]);
  const out: Record<string, unknown> = {};
  // Sequential: the embedded store serves one connection, and a dashboard is eight small queries.
  for (const s of sections) out[SECTION_KEYS[s]] = await deps.kbAnalytics[SECTION_KEYS[s]](scope);
  return section ? out : { knowledgeBaseId: kb.id, days, limit, ...out };
}
