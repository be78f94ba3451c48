import type { Actor } from '../identity/actor';
import { activeOrganization, canOnResource, hasOrgPermission, type ResourcePermission } from '../identity/policy';
import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import type { Agent } from './agent';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
export const isUuid = (v: string) => UUID.test(v);

export const agentNotFound = () => new DomainError('NOT_FOUND', 'Agent not found');

export const isReviewer = (actor: Actor) => hasOrgPermission(actor.orgRole, 'agents.review');

/**
 * Loads an agent of the actor's active organization and checks a permission on it (spec 5.1). Missing,
 * deleted, or another organization's agent: 404. Present but not permitted: 403. With `lock`, the row stays
 * locked until the surrounding transaction ends.
 */
export async function loadAgent(
  repos: Repositories,
  actor: Actor,
  id: string,
  permission: ResourcePermission,
  options: { lock?: boolean } = {},
): Promise<Agent> {
  const organizationId = activeOrganization(actor);
  if (!isUuid(id)) throw agentNotFound();
  const agent = options.lock ? await repos.agents.lockForUpdate(organizationId, id) : await repos.agents.findById(organizationId, id);
  if (!agent) throw agentNotFound();
  if (!canOnResource(actor.orgRole, permission)) {
    const grants = await repos.agents.grantsFor(agent.id, actor.userId);
    if (!canOnResource(actor.orgRole, permission, grants)) {
      throw new DomainError('FORBIDDEN', `Your role (${actor.orgRole}) lacks the ${permission} permission on this agent`);
    }
  }
  return agent;
}
