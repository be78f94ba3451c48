import type { Agent } from '../agents/agent';
import type { Actor } from '../identity/actor';
import { activeOrganization, requireResourcePermission, type ResourcePermission } from '../identity/policy';
import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import type { KnowledgeBase } from './knowledge-base';

/**
 * The knowledge base in the actor's organization with the permission checked. Another organization's
 * knowledge base is NOT_FOUND (never FORBIDDEN), like a missing one.
 */
export async function knowledgeBaseFor(
  repos: Repositories,
  actor: Actor,
  id: string,
  permission: ResourcePermission,
): Promise<KnowledgeBase> {
  const organizationId = activeOrganization(actor);
  const kb = await repos.knowledgeBases.findById(organizationId, id);
  if (!kb) throw new DomainError('NOT_FOUND', 'Knowledge base not found');
  const grants = actor.orgRole === 'viewer' ? await repos.knowledgeBases.grantsFor(kb.id, actor.userId) : [];
  requireResourcePermission(actor, permission, grants);
  return kb;
}

/** A live agent of the actor's organization with the permission checked (404 for other organizations). */
export async function agentFor(repos: Repositories, actor: Actor, id: string, permission: ResourcePermission): Promise<Agent> {
  const organizationId = activeOrganization(actor);
  const agent = await repos.agents.findById(organizationId, id);
  if (!agent) throw new DomainError('NOT_FOUND', 'Agent not found');
  const grants = actor.orgRole === 'viewer' ? await repos.agents.grantsFor(agent.id, actor.userId) : [];
  requireResourcePermission(actor, permission, grants);
  return agent;
}
