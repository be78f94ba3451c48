import { recordAudit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { canOnResource } from '../identity/policy';
import { DomainError } from '../shared/errors';
import { agentFor, knowledgeBaseFor } from './kb-access';
import type { FailedSource, KnowledgeBaseStats } from './knowledge-base';
import { toKnowledgeBaseView } from './knowledge-bases';
import type { KnowledgeDeps } from './knowledge-deps';

export interface LinkInput {
  permissions?: Record<string, unknown>;
  priority?: number;
}

/** Needs edit on both the knowledge base and the agent, in the actor's organization. */
export async function linkKnowledgeBase(deps: KnowledgeDeps, actor: Actor, knowledgeBaseId: string, agentId: string, input: LinkInput) {
  return deps.store.transaction(async (repos) => {
    const kb = await knowledgeBaseFor(repos, actor, knowledgeBaseId, 'edit');
    const agent = await agentFor(repos, actor, agentId, 'edit');
    const existing = await repos.knowledgeLinks.find(kb.organizationId, agent.id, kb.id);
    await repos.knowledgeLinks.upsert({
      agentId: agent.id,
      knowledgeBaseId: kb.id,
      organizationId: kb.organizationId,
      permissions: input.permissions ?? existing?.permissions ?? {},
      priority: input.priority ?? existing?.priority ?? 0,
      linkedAt: existing?.linkedAt ?? deps.clock.now().toISOString(),
      linkedBy: existing?.linkedBy ?? actor.userId,
    });
    await recordAudit(deps, repos, {
      organizationId: kb.organizationId,
      actorId: actor.userId,
      action: 'knowledge_base.connect',
      resourceType: 'knowledge_base',
      resourceId: kb.id,
      metadata: { agentId: agent.id, priority: input.priority ?? 0, updated: !!existing },
    });
    return {
      message: existing ? 'Knowledge base link updated' : 'Knowledge base linked to agent',
      knowledgeBaseId: kb.id,
      agentId: agent.id,
    };
  });
}

export async function unlinkKnowledgeBase(deps: KnowledgeDeps, actor: Actor, knowledgeBaseId: string, agentId: string) {
  return deps.store.transaction(async (repos) => {
    const kb = await knowledgeBaseFor(repos, actor, knowledgeBaseId, 'edit');
    const agent = await agentFor(repos, actor, agentId, 'edit');
    if (!(await repos.knowledgeLinks.remove(kb.organizationId, agent.id, kb.id))) {
      throw new DomainError('NOT_FOUND', 'The knowledge base is not linked to this agent');
    }
    await recordAudit(deps, repos, {
      organizationId: kb.organizationId,
      actorId: actor.userId,
      action: 'knowledge_base.disconnect',
      resourceType: 'knowledge_base',
      resourceId: kb.id,
      metadata: { agentId: agent.id },
    });
    return { message: 'Knowledge base unlinked from agent' };
  });
}

export type SyncHealth = 'healthy' | 'degraded' | 'failing';

/** healthy: no source failing (or no sources); failing: every source failing; degraded: some. */
export function sourceHealth(stats: Pick<KnowledgeBaseStats, 'sourceCount' | 'failedSources'>): {
  syncHealth: SyncHealth;
  failedSourceCount: number;
  failedSources: FailedSource[];
} {
  const failed = stats.failedSources.length;
  const syncHealth: SyncHealth = failed === 0 ? 'healthy' : failed >= stats.sourceCount ? 'failing' : 'degraded';
  return { syncHealth, failedSourceCount: failed, failedSources: stats.failedSources };
}

/** The agent's knowledge bases with link details and source health (read on the agent). */
export async function listAgentKnowledgeBases(deps: KnowledgeDeps, actor: Actor, agentId: string) {
  const repos = deps.store.repos;
  const agent = await agentFor(repos, actor, agentId, 'read');
  const linked = await repos.knowledgeLinks.listForAgent(agent.organizationId, agent.id);
  const stats = new Map(
    (
      await repos.knowledgeBases.stats(
        agent.organizationId,
        linked.map((l) => l.knowledgeBase.id),
      )
    ).map((s) => [s.knowledgeBaseId, s]),
  );
  const knowledgeBases = linked.map(({ knowledgeBase, link }) => {
    const s = stats.get(knowledgeBase.id)!;
    return {
      ...toKnowledgeBaseView(knowledgeBase),
      permissions: link.permissions,
      priority: link.priority,
      linked_at: link.linkedAt,
      documentCount: s.documentCount,
      sourceCount: s.sourceCount,
      ...sourceHealth(s),
    };
  });
  return { knowledgeBases, count: knowledgeBases.length };
}

export const DELETE_IMPACT_LIMIT = 100;
export const OTHER_AGENTS_SAMPLE = 5;

/**
 * What deleting the agent's knowledge bases along with the agent would touch (spec 4.6). A knowledge base
 * used by another live agent is shared and cannot be deleted with this agent; neither can one the caller
 * lacks delete permission on.
 */
export async function agentDeleteImpact(deps: KnowledgeDeps, actor: Actor, agentId: string) {
  const repos = deps.store.repos;
  // Spec 5.1: delete-impact needs `delete` on the agent (a viewer without a grant gets 403).
  const agent = await agentFor(repos, actor, agentId, 'delete');
  const linked = await repos.knowledgeLinks.listForAgent(agent.organizationId, agent.id, { limit: DELETE_IMPACT_LIMIT + 1 });
  const truncated = linked.length > DELETE_IMPACT_LIMIT;
  const shown = linked.slice(0, DELETE_IMPACT_LIMIT).map((l) => l.knowledgeBase);
  const ids = shown.map((kb) => kb.id);
  const [stats, others] = await Promise.all([
    repos.knowledgeBases.stats(agent.organizationId, ids),
    repos.knowledgeLinks.otherAgents(agent.organizationId, ids, agent.id, OTHER_AGENTS_SAMPLE),
  ]);
  const statsById = new Map(stats.map((s) => [s.knowledgeBaseId, s]));
  const knowledgeBases = [];
  for (const kb of shown) {
    const s = statsById.get(kb.id)!;
    const other = others.get(kb.id) ?? { count: 0, sample: [] };
    const grants = actor.orgRole === 'viewer' ? await repos.knowledgeBases.grantsFor(kb.id, actor.userId) : [];
    const mayDelete = canOnResource(actor.orgRole, 'delete', grants);
    const cannotDeleteReason =
      other.count > 0
        ? `Shared with ${other.count} other agent${other.count === 1 ? '' : 's'}`
        : !mayDelete
          ? 'You do not have permission to delete this knowledge base'
          : null;
    knowledgeBases.push({
      id: kb.id,
      name: kb.name,
      documentCount: s.documentCount,
      sourceCount: s.sourceCount,
      otherAgentCount: other.count,
      otherAgents: other.sample,
      canDelete: cannotDeleteReason === null,
      cannotDeleteReason,
    });
  }
  return { knowledgeBases, truncated };
}
