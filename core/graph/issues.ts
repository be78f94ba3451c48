/**
 * The issues listing (spec 4.8 GET /issues): outstanding suggestions (pending or approved) and entities
 * matching a predicate (orphan, low_confidence, needs_review; hidden entities excluded). Ordered with
 * suggestions first (confidence, then recency), then entities by name. `total` counts the active filter;
 * `counts` always has the six categories, an entity matching two predicates counting twice.
 */
import type { Actor } from '../identity/actor';
import type { GraphEntity, SuggestionType } from '../ports/graph-store';
import { graphScope } from './entities';
import type { GraphDeps } from './graph-deps';
import { toEntityView } from './graph-views';
import { allEntities, toSuggestionView } from './optimize';
import { isLowConfidence, ISSUE_CATEGORIES, needsReview } from './suggestion-rules';

export const clampIssueLimit = (limit: unknown) => {
  const n = Math.trunc(Number(limit));
  return Number.isFinite(n) ? Math.min(200, Math.max(1, n)) : 50;
};

type Issue =
  | { kind: 'suggestion'; category: SuggestionType; suggestion: ReturnType<typeof toSuggestionView> }
  | { kind: 'entity'; category: SuggestionType; entity: ReturnType<typeof toEntityView> };

export async function listIssues(
  deps: GraphDeps,
  actor: Actor,
  knowledgeBaseId: string,
  q: { category?: string; limit?: unknown; offset?: unknown },
) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'read');
  const category = (ISSUE_CATEGORIES as readonly string[]).includes(q.category ?? '') ? (q.category as SuggestionType) : null;
  const limit = clampIssueLimit(q.limit ?? 50);
  const offset = Math.max(0, Math.trunc(Number(q.offset ?? 0)) || 0);
  const [suggestions, entities, orphans] = await Promise.all([
    deps.graph.listSuggestions(scope, { status: ['pending', 'approved'], limit: 100_000, offset: 0 }),
    allEntities(deps, scope),
    deps.graph.orphanIds(scope),
  ]);
  const visible = new Map(entities.filter((e) => !e.hidden).map((e) => [e.id, e]));
  const liveSuggestions = suggestions.items
    .filter((s) => s.entityIds.every((id) => visible.has(id)))
    .sort((a, b) => b.confidence - a.confidence || b.createdAt.localeCompare(a.createdAt) || a.id.localeCompare(b.id));
  const covered = new Set(liveSuggestions.flatMap((s) => s.entityIds.map((id) => `${s.type}:${id}`)));
  const orphanSet = new Set(orphans);
  const predicates: [SuggestionType, (e: GraphEntity) => boolean][] = [
    ['orphan', (e) => orphanSet.has(e.id)],
    ['low_confidence', isLowConfidence],
    ['needs_review', needsReview],
  ];
  const byName = [...visible.values()].sort((a, b) => a.name.localeCompare(b.name) || a.id.localeCompare(b.id));
  const all: Issue[] = liveSuggestions.map((s) => ({ kind: 'suggestion', category: s.type, suggestion: toSuggestionView(s) }) as Issue);
  for (const e of byName)
    for (const [cat, test] of predicates)
      if (test(e) && !covered.has(`${cat}:${e.id}`)) all.push({ kind: 'entity', category: cat, entity: toEntityView(e) });
  const counts = Object.fromEntries(ISSUE_CATEGORIES.map((c) => [c, 0])) as Record<SuggestionType, number>;
  for (const i of all) counts[i.category]++;
  const filtered = category ? all.filter((i) => i.category === category) : all;
  return { issues: filtered.slice(offset, offset + limit), total: filtered.length, counts, category: category ?? 'all', limit, offset };
}
