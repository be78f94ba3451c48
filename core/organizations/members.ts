import { audit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { ASSIGNABLE_ROLES, isRoleIn } from '../identity/policy';
import type { OrgRole } from '../identity/roles';
import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import { seatUsage } from './invitations';
import { roleIn } from './membership-access';
import type { OrganizationDeps } from './organization-deps';

export async function listMembers(deps: OrganizationDeps, actor: Actor, organizationId: string) {
  await roleIn(deps.store.repos, actor, organizationId, 'org.read');
  return deps.store.repos.memberships.listMembers(organizationId);
}

export async function getSeatUsage(deps: OrganizationDeps, actor: Actor, organizationId: string) {
  await roleIn(deps.store.repos, actor, organizationId, 'org.read');
  return seatUsage(deps.store.repos, organizationId, deps.clock.now().toISOString());
}

/** Only owners touch owners; an organization always keeps at least one owner. */
async function targetOf(repos: Repositories, actor: Actor, organizationId: string, userId: string) {
  const actorRole = await roleIn(repos, actor, organizationId, 'org.manage_members');
  const target = await repos.memberships.find(organizationId, userId);
  if (!target) throw new DomainError('NOT_FOUND', 'Member not found');
  if (target.role === 'owner' && actorRole !== 'owner') throw new DomainError('FORBIDDEN', 'Only an owner can change or remove an owner');
  return { actorRole, target };
}

async function assertNotLastOwner(repos: Repositories, organizationId: string, role: OrgRole) {
  if (role === 'owner' && (await repos.memberships.countWithRole(organizationId, 'owner')) <= 1) {
    throw new DomainError('INVALID_STATE', 'An organization must keep at least one owner');
  }
}

export async function changeMemberRole(deps: OrganizationDeps, actor: Actor, organizationId: string, userId: string, role: string) {
  if (!isRoleIn(ASSIGNABLE_ROLES, role)) throw new DomainError('VALIDATION', `role must be one of ${ASSIGNABLE_ROLES.join(', ')}`);
  return deps.store.transaction(async (repos) => {
    await repos.invitations.lockOrganization(organizationId);
    const { actorRole, target } = await targetOf(repos, actor, organizationId, userId);
    if (role === 'owner' && actorRole !== 'owner') throw new DomainError('FORBIDDEN', 'Only an owner can make someone an owner');
    if (target.role !== role) await assertNotLastOwner(repos, organizationId, target.role);
    await repos.memberships.updateRole(organizationId, userId, role);
    await audit(deps, repos, actor.userId, organizationId, 'member.role_change', ['user', userId], { from: target.role, to: role });
    const member = (await repos.memberships.listMembers(organizationId)).find((m) => m.userId === userId);
    return member!;
  });
}

export async function removeMember(deps: OrganizationDeps, actor: Actor, organizationId: string, userId: string) {
  await deps.store.transaction(async (repos) => {
    await repos.invitations.lockOrganization(organizationId);
    const { target } = await targetOf(repos, actor, organizationId, userId);
    await assertNotLastOwner(repos, organizationId, target.role);
    await repos.memberships.remove(organizationId, userId);
    // Group memberships end with the organization membership (docs/contracts.md "Groups": groups hold members only).
    await repos.groups.removeUser(organizationId, userId);
    await audit(deps, repos, actor.userId, organizationId, 'member.remove', ['user', userId], { role: target.role });
  });
}
