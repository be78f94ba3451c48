import { audit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { INVITABLE_ROLES, isRoleIn } from '../identity/policy';
import type { OrgRole } from '../identity/roles';
import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import { sha256Hex } from '../shared/hash';
import { roleIn } from './membership-access';
import type { Invitation } from './organization';
import type { OrganizationDeps } from './organization-deps';

const INVITATION_TTL_MS = 7 * 24 * 3600 * 1000;

export interface InvitationView {
  id: string;
  email: string;
  role: OrgRole;
  status: Invitation['status'];
  expiresAt: string;
  createdAt: string;
}

const view = (i: Invitation, now: string): InvitationView => ({
  id: i.id,
  email: i.email,
  role: i.role,
  status: i.status === 'pending' && i.expiresAt <= now ? 'expired' : i.status,
  expiresAt: i.expiresAt,
  createdAt: i.createdAt,
});

export interface SeatUsage {
  usedSeats: number;
  totalSeats: number;
  pendingInvitations: number;
}

export async function seatUsage(repos: Repositories, organizationId: string, now: string): Promise<SeatUsage> {
  const org = await repos.organizations.findById(organizationId);
  if (!org) throw new DomainError('NOT_FOUND', 'Organization not found');
  const [usedSeats, pendingInvitations] = await Promise.all([
    repos.memberships.count(organizationId),
    repos.invitations.countPending(organizationId, now),
  ]);
  return { usedSeats, totalSeats: org.plan.seats, pendingInvitations };
}

/** Seats are checked for everyone, platform administrators included. */
export async function inviteMember(deps: OrganizationDeps, actor: Actor, organizationId: string, input: { email: string; role: string }) {
  const role = input.role;
  if (!isRoleIn(INVITABLE_ROLES, role)) throw new DomainError('VALIDATION', `role must be one of ${INVITABLE_ROLES.join(', ')}`);
  const email = input.email.trim().toLowerCase();
  const now = deps.clock.now();
  const nowIso = now.toISOString();
  return deps.store.transaction(async (repos) => {
    await roleIn(repos, actor, organizationId, 'org.invite');
    await repos.invitations.lockOrganization(organizationId);
    const invitee = await repos.users.findByEmail(email);
    if (invitee && (await repos.memberships.find(organizationId, invitee.id)))
      throw new DomainError('CONFLICT', 'This person is already a member');
    const pending = (await repos.invitations.listForOrganization(organizationId)).find(
      (i) => i.email === email && i.status === 'pending' && i.expiresAt > nowIso,
    );
    if (pending) throw new DomainError('CONFLICT', 'An invitation for this email is already pending');
    const seats = await seatUsage(repos, organizationId, nowIso);
    if (seats.usedSeats + seats.pendingInvitations >= seats.totalSeats) {
      throw new DomainError('SEATS_EXHAUSTED', `All ${seats.totalSeats} seats are used or held by pending invitations`, seats);
    }
    const token = deps.ids.secret(32);
    const invitation: Invitation = {
      id: deps.ids.uuid(),
      organizationId,
      email,
      role,
      status: 'pending',
      tokenHash: sha256Hex(token),
      invitedBy: actor.userId,
      expiresAt: new Date(now.getTime() + INVITATION_TTL_MS).toISOString(),
      createdAt: nowIso,
    };
    await repos.invitations.create(invitation);
    await audit(deps, repos, actor.userId, organizationId, 'invitation.create', ['invitation', invitation.id], { email, role });
    return { invitation: view(invitation, nowIso), token };
  });
}

export async function listInvitations(deps: OrganizationDeps, actor: Actor, organizationId: string) {
  const repos = deps.store.repos;
  await roleIn(repos, actor, organizationId, 'org.invite');
  const now = deps.clock.now().toISOString();
  // A revoked invitation is gone for the admin who revoked it (DELETE answers 204); accepted and expired ones stay as history.
  return (await repos.invitations.listForOrganization(organizationId)).filter((i) => i.status !== 'revoked').map((i) => view(i, now));
}

/** Revoking frees the seat. */
export async function revokeInvitation(deps: OrganizationDeps, actor: Actor, organizationId: string, invitationId: string) {
  await deps.store.transaction(async (repos) => {
    await roleIn(repos, actor, organizationId, 'org.invite');
    const invitation = await repos.invitations.findById(organizationId, invitationId);
    if (!invitation || invitation.status !== 'pending') throw new DomainError('NOT_FOUND', 'Invitation not found');
    await repos.invitations.setStatus(invitation.id, 'revoked');
    await audit(deps, repos, actor.userId, organizationId, 'invitation.revoke', ['invitation', invitation.id], { email: invitation.email });
  });
}

export async function acceptInvitation(deps: OrganizationDeps, actor: Actor, token: string) {
  const now = deps.clock.now().toISOString();
  return deps.store.transaction(async (repos) => {
    const invitation = await repos.invitations.findByTokenHash(sha256Hex(token));
    if (!invitation || invitation.status !== 'pending' || invitation.expiresAt <= now) {
      throw new DomainError('NOT_FOUND', 'Invitation not found, already used or expired');
    }
    if (invitation.email !== actor.email.toLowerCase())
      throw new DomainError('FORBIDDEN', 'This invitation was sent to another email address');
    const org = await repos.organizations.findById(invitation.organizationId);
    if (!org) throw new DomainError('NOT_FOUND', 'Organization not found');
    const existing = await repos.memberships.find(org.id, actor.userId);
    if (!existing) await repos.memberships.add({ organizationId: org.id, userId: actor.userId, role: invitation.role, createdAt: now });
    await repos.invitations.setStatus(invitation.id, 'accepted');
    await audit(deps, repos, actor.userId, org.id, 'invitation.accept', ['invitation', invitation.id], { role: invitation.role });
    return { organization: { id: org.id, name: org.name, slug: org.slug, role: existing?.role ?? invitation.role } };
  });
}
