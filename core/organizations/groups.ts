/**
 * User groups (docs/contracts.md "Groups"): `POST/GET /api/organizations/:orgId/groups`, `DELETE .../groups/:groupId`,
 * `PUT|DELETE .../groups/:groupId/members/:userId`. Any member may list groups and their members; creating,
 * deleting and changing membership need owner or admin. Someone outside the organization gets 404 for all of
 * it, like another organization's group. Only members of the organization can join its groups.
 */
import type { Distribution } from '../agents/agent';
import { recordAudit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import type { GroupRestrictedAgent, GroupView } from './group';
import { roleIn } from './membership-access';
import type { OrganizationDeps } from './organization-deps';

export const GROUP_NAME_MAX = 255;

const groupNotFound = () => new DomainError('NOT_FOUND', 'Group not found');

async function groupOf(repos: Repositories, organizationId: string, groupId: string): Promise<GroupView> {
  const group = await repos.groups.find(organizationId, groupId);
  if (!group) throw groupNotFound();
  return group;
}

export async function createGroup(deps: OrganizationDeps, actor: Actor, organizationId: string, input: { name: string }) {
  const name = typeof input.name === 'string' ? input.name.trim() : '';
  if (!name || name.length > GROUP_NAME_MAX) throw new DomainError('VALIDATION', `name must be 1-${GROUP_NAME_MAX} characters`);
  return deps.store.transaction(async (repos) => {
    await roleIn(repos, actor, organizationId, 'org.manage_members');
    const group = { id: deps.ids.uuid(), organizationId, name, createdBy: actor.userId, createdAt: deps.clock.now().toISOString() };
    await repos.groups.create(group);
    await recordAudit(deps, repos, {
      organizationId,
      actorId: actor.userId,
      action: 'group.create',
      resourceType: 'group',
      resourceId: group.id,
      metadata: { name },
    });
    return { group: { id: group.id, name, memberCount: 0, createdAt: group.createdAt } satisfies GroupView };
  });
}

export async function listGroups(deps: OrganizationDeps, actor: Actor, organizationId: string) {
  await roleIn(deps.store.repos, actor, organizationId, 'org.read');
  return { groups: await deps.store.repos.groups.list(organizationId) };
}

export async function listGroupMembers(deps: OrganizationDeps, actor: Actor, organizationId: string, groupId: string) {
  const repos = deps.store.repos;
  await roleIn(repos, actor, organizationId, 'org.read');
  await groupOf(repos, organizationId, groupId);
  return { members: await repos.groups.listMembers(organizationId, groupId) };
}

/**
 * The distribution of an agent once `groupId` is gone. An agent that only that group could open stays closed:
 * its allowed_group_ids becomes empty and require_org_membership true, so deleting a group never makes an
 * agent public (an empty list alone would mean "everyone").
 */
export function withoutGroup(agent: GroupRestrictedAgent, groupId: string): Distribution {
  const remaining = agent.allowedGroupIds.filter((id) => id !== groupId);
  return { require_org_membership: agent.requireOrgMembership || remaining.length === 0, allowed_group_ids: remaining };
}

/** Deletes the group and removes it from every agent's allowed_group_ids in the same transaction. */
export async function deleteGroup(deps: OrganizationDeps, actor: Actor, organizationId: string, groupId: string) {
  await deps.store.transaction(async (repos) => {
    await roleIn(repos, actor, organizationId, 'org.manage_members');
    const group = await groupOf(repos, organizationId, groupId);
    const now = deps.clock.now().toISOString();
    const agents = await repos.groups.agentsRestrictedTo(organizationId, groupId);
    for (const agent of agents) {
      await repos.agents.update(organizationId, agent.agentId, { distribution: withoutGroup(agent, groupId), updatedAt: now });
    }
    await repos.groups.delete(organizationId, groupId);
    await recordAudit(deps, repos, {
      organizationId,
      actorId: actor.userId,
      action: 'group.delete',
      resourceType: 'group',
      resourceId: groupId,
      metadata: { name: group.name, agentsUpdated: agents.map((a) => a.agentId) },
    });
  });
}

export async function addGroupMember(deps: OrganizationDeps, actor: Actor, organizationId: string, groupId: string, userId: string) {
  await deps.store.transaction(async (repos) => {
    await roleIn(repos, actor, organizationId, 'org.manage_members');
    await groupOf(repos, organizationId, groupId);
    if (!(await repos.memberships.find(organizationId, userId)))
      throw new DomainError('NOT_FOUND', 'Member not found: only members of the organization can join its groups');
    await repos.groups.addMember(organizationId, groupId, userId, deps.clock.now().toISOString());
  });
}

/** Idempotent: removing someone who is not in the group (but is in the organization) is still 204. */
export async function removeGroupMember(deps: OrganizationDeps, actor: Actor, organizationId: string, groupId: string, userId: string) {
  await deps.store.transaction(async (repos) => {
    await roleIn(repos, actor, organizationId, 'org.manage_members');
    await groupOf(repos, organizationId, groupId);
    const removed = await repos.groups.removeMember(organizationId, groupId, userId);
    if (!removed && !(await repos.memberships.find(organizationId, userId))) throw new DomainError('NOT_FOUND', 'Member not found');
  });
}
