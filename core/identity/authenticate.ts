import { DomainError } from '../shared/errors';
import { createAccount } from './create-account';
import type { IdentityDeps } from './identity-deps';
import { assertAcceptablePassword } from './password-policy';
import { issueSession, type Session } from './session';
import { assertRegistrationAllowed, assertSignInAllowed, recordSignInFailure, recordSignInSuccess } from './sign-in-limits';
import type { User } from './user';

export interface RegisterInput {
  email: string;
  password: string;
  displayName?: string;
  organizationName?: string;
}

export function assertActive(user: User) {
  if (user.status !== 'active') throw new DomainError('ACCOUNT_SUSPENDED', 'This account is suspended');
}

export async function register(deps: IdentityDeps, input: RegisterInput, clientIp: string | null = null): Promise<Session> {
  assertAcceptablePassword(deps.passwordPolicy, input.password);
  await assertRegistrationAllowed(deps.signInLimits, clientIp);
  const email = input.email.trim().toLowerCase();
  const displayName = input.displayName?.trim() || email.split('@')[0];
  const organizationName = input.organizationName?.trim() || `${displayName}'s Organization`;
  const passwordHash = await deps.passwords.hash(input.password);
  return deps.store.transaction(async (repos) => {
    if (await repos.users.findByEmail(email)) throw new DomainError('CONFLICT', 'An account with this email already exists');
    const user = await createAccount(deps, repos, {
      email,
      displayName,
      passwordHash,
      accountType: 'password',
      emailVerified: false,
      organizationName,
    });
    return issueSession(deps, repos, user, null);
  });
}

/**
 * Password sign-in. A locked account (too many failures in the window) or address is refused with 429 before
 * the password is looked at, so a locked account stays locked even with the right password; the same holds
 * for an email with no account, so locks do not reveal accounts either.
 */
export async function login(
  deps: IdentityDeps,
  input: { email: string; password: string },
  clientIp: string | null = null,
): Promise<Session> {
  await assertSignInAllowed(deps.signInLimits, input.email, clientIp);
  const user = await deps.store.repos.users.findByEmail(input.email.trim());
  let ok = false;
  if (user?.passwordHash) ok = await deps.passwords.verify(input.password, user.passwordHash);
  // Same cost whether or not the account exists (or has a password), so response times do not reveal accounts.
  else await deps.passwords.hash(input.password);
  if (!user || !ok) {
    await recordSignInFailure(deps.signInLimits, input.email, clientIp);
    throw new DomainError('AUTHENTICATION_FAILED', 'Invalid email or password');
  }
  assertActive(user);
  await recordSignInSuccess(deps.signInLimits, input.email);
  await upgradePasswordHash(deps, user, input.password);
  return deps.store.transaction((repos) => issueSession(deps, repos, user, null));
}

/** The plain password is only at hand at sign-in: that is when an old-algorithm hash is replaced. */
async function upgradePasswordHash(deps: IdentityDeps, user: User, password: string) {
  if (!user.passwordHash || !deps.passwords.needsRehash?.(user.passwordHash)) return;
  const passwordHash = await deps.passwords.hash(password);
  await deps.store.repos.users.update(user.id, { passwordHash }, deps.clock.now().toISOString());
}

/** Rotation: a refresh token works once; presenting a spent one revokes its whole family. */
export async function refresh(deps: IdentityDeps, refreshToken: string): Promise<Session> {
  const claims = await deps.tokens.verify(refreshToken, 'refresh');
  if (!claims) throw new DomainError('AUTHENTICATION_FAILED', 'Invalid or expired refresh token');
  const now = deps.clock.now().toISOString();
  const outcome = await deps.store.transaction(async (repos) => {
    const record = await repos.refreshTokens.findById(claims.jti);
    if (!record || record.revokedAt || record.userId !== claims.userId) return 'invalid' as const;
    if (!(await repos.refreshTokens.markUsed(record.id, now))) {
      // A spent token came back: someone holds a copy. Revoke the family and every access token issued so far.
      await repos.refreshTokens.revokeFamily(record.familyId, now);
      await repos.users.bumpTokenVersion(record.userId, now);
      return 'reused' as const;
    }
    const user = await repos.users.findById(record.userId);
    if (!user) return 'invalid' as const;
    assertActive(user);
    return issueSession(deps, repos, user, record.activeOrganizationId, record.familyId);
  });
  if (outcome === 'reused') throw new DomainError('AUTHENTICATION_FAILED', 'Refresh token was already used; sign in again');
  if (outcome === 'invalid') throw new DomainError('AUTHENTICATION_FAILED', 'Invalid or expired refresh token');
  return outcome;
}

export async function switchOrganization(deps: IdentityDeps, userId: string, organizationId: string): Promise<Session> {
  return deps.store.transaction(async (repos) => {
    const user = await repos.users.findById(userId);
    if (!user) throw new DomainError('AUTHENTICATION_FAILED', 'Unknown user');
    assertActive(user);
    if (!(await repos.memberships.find(organizationId, userId))) {
      throw new DomainError('FORBIDDEN', 'You are not a member of this organization');
    }
    return issueSession(deps, repos, user, organizationId);
  });
}
