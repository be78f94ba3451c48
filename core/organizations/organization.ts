import type { OrgRole } from '../identity/roles';

export interface Organization {
  id: string;
  name: string;
  slug: string;
  plan: PlanLimits;
  createdAt: string;
}

export interface PlanLimits {
  seats: number;
  agents: number;
  knowledgeBases: number;
}

export interface Membership {
  organizationId: string;
  userId: string;
  role: OrgRole;
  createdAt: string;
}

export interface MembershipWithOrganization extends Membership {
  organization: Organization;
}

export interface MemberView {
  userId: string;
  email: string;
  displayName: string;
  role: OrgRole;
}

export interface OrganizationRepository {
  create(org: Organization): Promise<void>;
  findById(id: string): Promise<Organization | null>;
  slugExists(slug: string): Promise<boolean>;
  /** Every organization, oldest first (platform administration). */
  list(page: { limit: number; offset: number }): Promise<{ items: Organization[]; total: number }>;
}

export interface MembershipRepository {
  add(membership: Membership): Promise<void>;
  find(organizationId: string, userId: string): Promise<Membership | null>;
  /** The user's memberships, oldest first. */
  listForUser(userId: string): Promise<MembershipWithOrganization[]>;
  listMembers(organizationId: string): Promise<MemberView[]>;
  count(organizationId: string): Promise<number>;
  countWithRole(organizationId: string, role: OrgRole): Promise<number>;
  updateRole(organizationId: string, userId: string, role: OrgRole): Promise<void>;
  remove(organizationId: string, userId: string): Promise<void>;
}

export type InvitationStatus = 'pending' | 'accepted' | 'revoked' | 'expired';

export interface Invitation {
  id: string;
  organizationId: string;
  email: string;
  role: OrgRole;
  status: InvitationStatus;
  tokenHash: string;
  invitedBy: string;
  expiresAt: string;
  createdAt: string;
}

export interface InvitationRepository {
  create(invitation: Invitation): Promise<void>;
  findById(organizationId: string, id: string): Promise<Invitation | null>;
  findByTokenHash(tokenHash: string): Promise<Invitation | null>;
  listForOrganization(organizationId: string): Promise<Invitation[]>;
  /** Pending and not yet expired at `now`: these hold seats. */
  countPending(organizationId: string, now: string): Promise<number>;
  setStatus(id: string, status: InvitationStatus): Promise<void>;
  /** Serialises seat checks of one organization inside a transaction. */
  lockOrganization(organizationId: string): Promise<void>;
}
