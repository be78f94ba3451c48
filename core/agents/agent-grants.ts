import type { Actor } from '../identity/actor';
import { requireOrgPermission, type ResourcePermission } from '../identity/policy';
import { DomainError } from '../shared/errors';
import { agentNotFound, isUuid } from './agent-access';
import type { AgentDeps } from './agent-deps';

/**
 * PUT /api/bots/:id/grants/:userId: owners and admins give one member explicit permissions on one agent
 * (how a viewer gets edit or delete, spec 5.1). The list replaces the previous grant; [] removes it.
 */
export async function setAgentGrant(deps: AgentDeps, actor: Actor, agentId: string, userId: string, permissions: ResourcePermission[]) {
  const organizationId = requireOrgPermission(actor, 'agents.review');
  return deps.store.transaction(async (repos) => {
    if (!isUuid(agentId) || !(await repos.agents.findById(organizationId, agentId))) throw agentNotFound();
    if (!isUuid(userId) || !(await repos.memberships.find(organizationId, userId))) throw new DomainError('NOT_FOUND', 'Member not found');
    const unique = [...new Set(permissions)];
    await repos.agents.setGrant({ agentId, userId, permissions: unique });
    return { grant: { agentId, userId, permissions: unique } };
  });
}

/** GET /api/bots/:id/grants: owners and admins. */
export async function listAgentGrants(deps: AgentDeps, actor: Actor, agentId: string) {
  const organizationId = requireOrgPermission(actor, 'agents.review');
  if (!isUuid(agentId) || !(await deps.store.repos.agents.findById(organizationId, agentId))) throw agentNotFound();
  return { grants: await deps.store.repos.agents.listGrants(agentId) };
}
