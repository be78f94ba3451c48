import type { Actor } from '../identity/actor';
import { hasOrgPermission, type OrgPermission } from '../identity/policy';
import type { OrgRole } from '../identity/roles';
import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';

/**
 * The actor's role in the organization named by a path. Non-members get 404 (the organization is not
 * theirs to know about); members without the permission get 403.
 */
export async function roleIn(repos: Repositories, actor: Actor, organizationId: string, permission: OrgPermission): Promise<OrgRole> {
  const membership = await repos.memberships.find(organizationId, actor.userId);
  if (!membership) throw new DomainError('NOT_FOUND', 'Organization not found');
  if (!hasOrgPermission(membership.role, permission)) {
    throw new DomainError('FORBIDDEN', `Your role (${membership.role}) does not allow this action`);
  }
  return membership.role;
}
