import { DomainError } from '../shared/errors';
import type { Actor } from './actor';
import type { OrgRole } from './roles';

/**
 * The one place that says who may do what (spec 5.1). Use cases ask; nothing else checks roles.
 */
export type OrgPermission =
  | 'org.read'
  | 'org.invite'
  | 'org.manage_members'
  | 'api_keys.manage'
  | 'agents.create'
  /** Approve or reject agents in review, publish without review, manage per-agent grants. */
  | 'agents.review'
  | 'knowledge_bases.create'
  | 'billing.read'
  | 'audit.read'
  | 'contacts.read'
  | 'analytics.read';

/** Permissions on one resource (an agent or a knowledge base). */
export type ResourcePermission = 'read' | 'use' | 'edit' | 'update' | 'delete' | 'view_analytics';

const everyone: OrgPermission[] = ['org.read'];
const contributors: OrgPermission[] = [...everyone, 'agents.create', 'knowledge_bases.create', 'contacts.read', 'analytics.read'];
const managers: OrgPermission[] = [
  ...contributors,
  'agents.review',
  'org.invite',
  'org.manage_members',
  'api_keys.manage',
  'billing.read',
  'audit.read',
];

const ORG_PERMISSIONS: Record<OrgRole, ReadonlySet<OrgPermission>> = {
  owner: new Set(managers),
  admin: new Set(managers),
  editor: new Set(contributors),
  member: new Set(contributors),
  viewer: new Set(everyone),
};

const allOnResources: ResourcePermission[] = ['read', 'use', 'edit', 'update', 'delete', 'view_analytics'];
// Owners, admins and members hold delete on every agent of their organization; a viewer needs a grant.
const RESOURCE_PERMISSIONS: Record<OrgRole, ReadonlySet<ResourcePermission>> = {
  owner: new Set(allOnResources),
  admin: new Set(allOnResources),
  editor: new Set(allOnResources),
  member: new Set(allOnResources),
  viewer: new Set<ResourcePermission>(['read', 'use']),
};

export const hasOrgPermission = (role: OrgRole | null, permission: OrgPermission) => !!role && ORG_PERMISSIONS[role].has(permission);

export function canOnResource(role: OrgRole | null, permission: ResourcePermission, grants: readonly ResourcePermission[] = []) {
  if (!role) return false;
  return RESOURCE_PERMISSIONS[role].has(permission) || grants.includes(permission);
}

/** The actor's active organization and the permission there, or FORBIDDEN. */
export function requireOrgPermission(actor: Actor, permission: OrgPermission): string {
  if (!actor.organizationId || !actor.orgRole) throw new DomainError('FORBIDDEN', 'You are not a member of an organization');
  if (!hasOrgPermission(actor.orgRole, permission)) {
    throw new DomainError('FORBIDDEN', `Your role (${actor.orgRole}) does not allow this action`);
  }
  return actor.organizationId;
}

/** The actor's active organization (any role), or FORBIDDEN when they have none. The one definition every area uses. */
export const activeOrganization = (actor: Actor): string => requireOrgPermission(actor, 'org.read');

export function requireResourcePermission(actor: Actor, permission: ResourcePermission, grants: readonly ResourcePermission[] = []) {
  if (!canOnResource(actor.orgRole, permission, grants)) {
    throw new DomainError('FORBIDDEN', `Your role (${actor.orgRole ?? 'none'}) lacks the ${permission} permission on this resource`);
  }
}

export function requireSuperadmin(actor: Actor) {
  if (actor.platformRole !== 'superadmin') throw new DomainError('FORBIDDEN', 'Only platform administrators may do this');
}

/** Whether a requested role (an untrusted string) is one of `roles`. */
export const isRoleIn = (roles: readonly OrgRole[], role: string): role is OrgRole => (roles as readonly string[]).includes(role);

/** Roles an invitation may grant (never owner). */
export const INVITABLE_ROLES: readonly OrgRole[] = ['admin', 'member', 'viewer'];
/** Roles an owner or admin may assign to an existing member. */
export const ASSIGNABLE_ROLES: readonly OrgRole[] = ['owner', 'admin', 'editor', 'member', 'viewer'];
