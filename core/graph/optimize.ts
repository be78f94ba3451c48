/**
 * Optimisation suggestions (spec 3.4, 4.8): generate and ai-resolve run as background jobs (queue
 * `graph.optimize`, job kind `graph_optimization`, followed through /api/jobs/:jobId); PATCH moves pending
 * to approved or rejected; apply carries out approved suggestions and marks them applied.
 */
import type { Actor } from '../identity/actor';
import type { GraphEntity, GraphScope, GraphSuggestion, SuggestionStatus } from '../ports/graph-store';
import type { Job } from '../ports/job-queue';
import { DomainError, isDomainError } from '../shared/errors';
import { graphScope } from './entities';
import { GRAPH_JOB_KIND, GRAPH_QUEUE, type GraphDeps, type GraphJobPayload } from './graph-deps';
import { foldName } from './names';
import { AUTO_APPROVE_CONFIDENCE, draftSuggestions } from './suggestion-rules';

const STATUSES: readonly SuggestionStatus[] = ['pending', 'approved', 'rejected', 'applied'];
const PAGE = 1000;

export const toSuggestionView = (s: GraphSuggestion) => ({
  id: s.id,
  knowledgeBaseId: s.knowledgeBaseId,
  type: s.type,
  status: s.status,
  entityIds: s.entityIds,
  payload: s.payload,
  reason: s.reason,
  confidence: s.confidence,
  resolvedBy: s.resolvedBy,
  createdAt: s.createdAt,
  updatedAt: s.updatedAt,
});

/** Every visible entity of the knowledge base, page by page. */
export async function allEntities(deps: GraphDeps, scope: GraphScope): Promise<GraphEntity[]> {
  const out: GraphEntity[] = [];
  for (let offset = 0; ; offset += PAGE) {
    const { items } = await deps.graph.listEntities(scope, { limit: PAGE, offset });
    out.push(...items);
    if (items.length < PAGE) return out;
  }
}

async function startJob(deps: GraphDeps, actor: Actor, knowledgeBaseId: string, action: GraphJobPayload['action']) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'edit');
  const jobId = deps.ids.uuid();
  const payload: GraphJobPayload = { ...scope, action };
  if (!deps.jobs) return deps.queue.enqueue<GraphJobPayload>(GRAPH_QUEUE, payload, { jobId });
  await deps.jobs.start({
    id: jobId,
    organizationId: scope.organizationId,
    kind: GRAPH_JOB_KIND,
    step: action,
    stepLabel: 'Waiting to start',
    reference: { knowledgeBaseId: scope.knowledgeBaseId, action },
    createdBy: actor.userId,
    dispatch: { queue: GRAPH_QUEUE, payload },
  });
  return jobId;
}

export async function startGenerate(deps: GraphDeps, actor: Actor, knowledgeBaseId: string) {
  const jobId = await startJob(deps, actor, knowledgeBaseId, 'generate');
  return { message: 'Generating optimisation suggestions', jobId };
}

export async function startAiResolve(deps: GraphDeps, actor: Actor, knowledgeBaseId: string) {
  const jobId = await startJob(deps, actor, knowledgeBaseId, 'ai-resolve');
  return { message: 'Resolving pending suggestions', jobId };
}

/** Replaces the pending suggestions with fresh ones (kept decisions are not suggested again). */
export async function generateSuggestions(deps: GraphDeps, scope: GraphScope): Promise<number> {
  const [entities, orphans, decided] = await Promise.all([
    allEntities(deps, scope),
    deps.graph.orphanIds(scope),
    deps.graph.listSuggestions(scope, { status: ['approved', 'rejected'], limit: 10_000, offset: 0 }),
  ]);
  const known = new Set(decided.items.map((s) => `${s.type}:${[...s.entityIds].sort().join(',')}`));
  const now = deps.clock.now().toISOString();
  const fresh = draftSuggestions(entities, new Set(orphans))
    .filter((d) => !known.has(`${d.type}:${[...d.entityIds].sort().join(',')}`))
    .map((d): GraphSuggestion => ({
      ...d,
      id: deps.ids.uuid(),
      knowledgeBaseId: scope.knowledgeBaseId,
      status: 'pending',
      resolvedBy: null,
      createdAt: now,
      updatedAt: now,
    }));
  await deps.graph.replacePendingSuggestions(scope, fresh);
  return fresh.length;
}

/** Each pending suggestion judged (a model when configured, else the confidence rule). */
export async function aiResolve(deps: GraphDeps, scope: GraphScope): Promise<{ approved: number; rejected: number }> {
  const { items } = await deps.graph.listSuggestions(scope, { status: ['pending'], limit: 10_000, offset: 0 });
  const names = new Map((await deps.graph.getEntities(scope, [...new Set(items.flatMap((s) => s.entityIds))])).map((e) => [e.id, e.name]));
  const result = { approved: 0, rejected: 0 };
  for (const s of items) {
    const verdict = await deps.judge.judge({
      type: s.type,
      reason: s.reason,
      confidence: s.confidence,
      entities: s.entityIds.map((id) => names.get(id) ?? id),
    });
    const moved = await deps.graph.setSuggestionStatus(scope, s.id, ['pending'], verdict, 'ai', deps.clock.now().toISOString());
    if (moved) result[verdict]++;
  }
  return result;
}

/** Without a model: approve at or above AUTO_APPROVE_CONFIDENCE. */
export const ruleJudge = {
  model: null,
  judge: async (s: { confidence: number }) =>
    (s.confidence >= AUTO_APPROVE_CONFIDENCE ? 'approved' : 'rejected') as 'approved' | 'rejected',
};

/** The `graph.optimize` worker. */
export async function processGraphJob(deps: GraphDeps, job: Job<GraphJobPayload>) {
  const { organizationId, knowledgeBaseId, action } = job.payload;
  const scope = { organizationId, knowledgeBaseId };
  await deps.jobs?.progress(job.id, {
    progress: 10,
    step: action,
    stepLabel: action === 'generate' ? 'Analysing the graph' : 'Judging suggestions',
  });
  try {
    const kb = await deps.store.repos.knowledgeBases.findById(organizationId, knowledgeBaseId);
    if (!kb) throw new DomainError('NOT_FOUND', 'The knowledge base was deleted');
    const result = action === 'generate' ? { generated: await generateSuggestions(deps, scope) } : await aiResolve(deps, scope);
    await deps.jobs?.complete(job.id, { progress: 100, stepLabel: 'Done', result: { knowledgeBaseId, ...result } });
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    await deps.jobs?.fail(job.id, {
      code: isDomainError(error) ? error.code.toLowerCase() : 'internal',
      message,
      retryable: !isDomainError(error),
    });
    if (!isDomainError(error)) throw error;
  }
}

export async function listSuggestions(
  deps: GraphDeps,
  actor: Actor,
  knowledgeBaseId: string,
  q: { status?: string; type?: string; limit: number; offset: number },
) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'read');
  const status = q.status && (STATUSES as readonly string[]).includes(q.status) ? [q.status as SuggestionStatus] : undefined;
  const { items, total } = await deps.graph.listSuggestions(scope, { status, type: q.type || undefined, limit: q.limit, offset: q.offset });
  return { suggestions: items.map(toSuggestionView), total, limit: q.limit, offset: q.offset };
}

export async function optimizeStats(deps: GraphDeps, actor: Actor, knowledgeBaseId: string) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'read');
  const rows = await deps.graph.suggestionCounts(scope);
  const byStatus: Record<string, number> = Object.fromEntries(STATUSES.map((s) => [s, 0]));
  const byType: Record<string, number> = {};
  const byTypeAndStatus: Record<string, Record<string, number>> = {};
  for (const r of rows) {
    byStatus[r.status] = (byStatus[r.status] ?? 0) + r.count;
    byType[r.type] = (byType[r.type] ?? 0) + r.count;
    byTypeAndStatus[r.type] = { ...(byTypeAndStatus[r.type] ?? {}), [r.status]: r.count };
  }
  return { total: rows.reduce((a, r) => a + r.count, 0), byStatus, byType, byTypeAndStatus };
}

/** PATCH status (spec 3.4): pending -> approved | rejected; a decided suggestion can be changed until applied. */
export async function setSuggestionStatus(deps: GraphDeps, actor: Actor, knowledgeBaseId: string, suggestionId: string, status: string) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'edit');
  if (status !== 'approved' && status !== 'rejected') throw new DomainError('VALIDATION', 'status must be approved or rejected');
  const now = deps.clock.now().toISOString();
  const moved = await deps.graph.setSuggestionStatus(scope, suggestionId, ['pending', 'approved', 'rejected'], status, 'user', now);
  if (moved) return { suggestion: toSuggestionView(moved) };
  const [existing] = await deps.graph.getSuggestions(scope, [suggestionId]);
  if (!existing) throw new DomainError('NOT_FOUND', 'Suggestion not found');
  throw new DomainError('INVALID_STATE', `The suggestion is ${existing.status} and can no longer change`);
}

async function applyOne(deps: GraphDeps, scope: GraphScope, s: GraphSuggestion, now: string) {
  const present = await deps.graph.getEntities(scope, s.entityIds);
  if (s.type === 'duplicate') {
    const canonical = String(s.payload.canonicalEntityId ?? s.entityIds[0]);
    if (!present.some((e) => e.id === canonical)) throw new Error('the canonical entity no longer exists');
    const others = present.map((e) => e.id).filter((id) => id !== canonical);
    if (others.length === 0) throw new Error('the duplicate entities no longer exist');
    await deps.graph.merge(scope, canonical, others, now);
  } else if (s.type === 'rename') {
    const [entity] = present;
    const newName = String(s.payload.newName ?? '');
    if (!entity) throw new Error('the entity no longer exists');
    const [holder] = await deps.graph.findByKeys(scope.organizationId, [scope.knowledgeBaseId], [foldName(newName)]);
    if (holder && holder.id !== entity.id) throw new Error(`"${newName}" is already another entity; merge them instead`);
    await deps.graph.rename(scope, entity.id, newName, foldName(newName), now);
  } else if (s.type !== 'needs_review') {
    if (present.length === 0) throw new Error('the entity no longer exists');
    await deps.graph.deleteEntities(
      scope,
      present.map((e) => e.id),
    );
  }
}

/** Applies approved suggestions: `{applied, failed, errors[]}` (a suggestion not approved is a failure). */
export async function applySuggestions(deps: GraphDeps, actor: Actor, knowledgeBaseId: string, suggestionIds: string[]) {
  const scope = await graphScope(deps, actor, knowledgeBaseId, 'edit');
  const ids = [...new Set(suggestionIds)];
  const found = new Map((await deps.graph.getSuggestions(scope, ids)).map((s) => [s.id, s]));
  const errors: { suggestionId: string; error: string }[] = [];
  let applied = 0;
  for (const id of ids) {
    const s = found.get(id);
    if (!s) errors.push({ suggestionId: id, error: 'Suggestion not found' });
    else if (s.status !== 'approved')
      errors.push({ suggestionId: id, error: `Only approved suggestions can be applied; this one is ${s.status}` });
    else {
      const now = deps.clock.now().toISOString();
      try {
        await applyOne(deps, scope, s, now);
        await deps.graph.setSuggestionStatus(scope, id, ['approved'], 'applied', s.resolvedBy, now);
        applied++;
      } catch (error) {
        errors.push({ suggestionId: id, error: error instanceof Error ? error.message : String(error) });
      }
    }
  }
  return { applied, failed: errors.length, errors };
}
