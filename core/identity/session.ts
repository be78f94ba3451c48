import type { Repositories } from '../ports/repositories';
import type { IdentityDeps } from './identity-deps';
import type { OrgRole } from './roles';
import type { OrganizationClaim } from './token-claims';
import type { User } from './user';

/** Spec 2.1: the user object of register, login and refresh. */
export interface UserView {
  id: string;
  email: string;
  displayName: string;
  emailVerified: boolean;
  accountType: string;
  platformRole: string;
  isSuperAdmin: boolean;
  status: string;
  organizations: OrganizationClaim[];
}

export interface Session {
  user: UserView;
  accessToken: string;
  refreshToken: string;
}

/** What a session reads of a membership (the organizations area's MembershipWithOrganization has this shape). */
export interface MembershipClaimSource {
  role: OrgRole;
  organization: { id: string; name: string; slug: string };
}

export const toOrganizationClaims = (memberships: readonly MembershipClaimSource[], activeId: string | null): OrganizationClaim[] => {
  const claims = memberships.map((m) => ({ id: m.organization.id, name: m.organization.name, slug: m.organization.slug, role: m.role }));
  const i = claims.findIndex((c) => c.id === activeId);
  if (i > 0) claims.unshift(...claims.splice(i, 1));
  return claims;
};

export const toUserView = (user: User, organizations: OrganizationClaim[]): UserView => ({
  id: user.id,
  email: user.email,
  displayName: user.displayName,
  emailVerified: user.emailVerified,
  accountType: user.accountType,
  platformRole: user.platformRole,
  isSuperAdmin: user.platformRole === 'superadmin',
  status: user.status,
  organizations,
});

/**
 * Issues an access and refresh token pair with `activeOrganizationId` first (when the user is a member).
 * `familyId` continues a refresh-token family on rotation; a new sign-in starts a new family.
 */
export async function issueSession(
  deps: IdentityDeps,
  repos: Repositories,
  user: User,
  activeOrganizationId: string | null,
  familyId?: string,
): Promise<Session> {
  const memberships = await repos.memberships.listForUser(user.id);
  const organizations = toOrganizationClaims(memberships, activeOrganizationId);
  const now = deps.clock.now();
  const iat = Math.floor(now.getTime() / 1000);
  const jti = deps.ids.uuid();
  const fam = familyId ?? deps.ids.uuid();
  const active = organizations[0]?.id ?? null;
  await repos.refreshTokens.create({
    id: jti,
    familyId: fam,
    userId: user.id,
    activeOrganizationId: active,
    expiresAt: new Date((iat + deps.settings.refreshTokenSeconds) * 1000).toISOString(),
    usedAt: null,
    revokedAt: null,
    createdAt: now.toISOString(),
  });
  const accessToken = deps.tokens.sign({
    typ: 'access',
    userId: user.id,
    email: user.email,
    platformRole: user.platformRole,
    organizations,
    iat,
    exp: iat + deps.settings.accessTokenSeconds,
    tokenVersion: user.tokenVersion ?? 0,
  });
  const refreshToken = deps.tokens.sign({
    typ: 'refresh',
    userId: user.id,
    jti,
    fam,
    org: active ?? '',
    iat,
    exp: iat + deps.settings.refreshTokenSeconds,
  });
  return { user: toUserView(user, organizations), accessToken, refreshToken };
}
