import { DomainError } from '../shared/errors';
import type { Actor } from './actor';
import { assertActive } from './authenticate';
import type { IdentityDeps } from './identity-deps';
import { assertAcceptablePassword } from './password-policy';
import { issueSession, type Session } from './session';
import type { User, UserStatus } from './user';

/**
 * Changes the caller's password: the current one is checked, the new one must pass the policy; every
 * refresh token is revoked and every access token issued so far refused; a fresh session is returned.
 */
export async function changePassword(
  deps: IdentityDeps,
  actor: Actor,
  input: { currentPassword: string; newPassword: string },
): Promise<Session> {
  const user = await deps.store.repos.users.findById(actor.userId);
  if (!user) throw new DomainError('AUTHENTICATION_FAILED', 'Unknown user');
  assertActive(user);
  if (!user.passwordHash || !(await deps.passwords.verify(input.currentPassword, user.passwordHash))) {
    throw new DomainError('AUTHENTICATION_FAILED', 'The current password is wrong');
  }
  assertAcceptablePassword(deps.passwordPolicy, input.newPassword, 'newPassword');
  if (input.newPassword === input.currentPassword) {
    throw new DomainError('VALIDATION', 'newPassword must differ from the current password');
  }
  const passwordHash = await deps.passwords.hash(input.newPassword);
  const now = deps.clock.now().toISOString();
  return deps.store.transaction(async (repos) => {
    await repos.users.update(user.id, { passwordHash }, now);
    await repos.refreshTokens.revokeAllForUser(user.id, now);
    const tokenVersion = await repos.users.bumpTokenVersion(user.id, now);
    return issueSession(deps, repos, { ...user, passwordHash, tokenVersion }, actor.organizationId);
  });
}

/**
 * Platform administrators suspend or reactivate an account. Suspension revokes every refresh token and
 * refuses every access token at once (not only at their expiry).
 */
export async function setAccountStatus(deps: IdentityDeps, actor: Actor, userId: string, status: UserStatus): Promise<User> {
  if (actor.platformRole !== 'superadmin') throw new DomainError('FORBIDDEN', 'Only platform administrators can change account status');
  if (userId === actor.userId && status === 'suspended') throw new DomainError('VALIDATION', 'You cannot suspend your own account');
  const now = deps.clock.now().toISOString();
  return deps.store.transaction(async (repos) => {
    const user = await repos.users.findById(userId);
    if (!user) throw new DomainError('NOT_FOUND', 'User not found');
    await repos.users.update(userId, { status }, now);
    if (status === 'suspended') {
      await repos.refreshTokens.revokeAllForUser(userId, now);
      await repos.users.bumpTokenVersion(userId, now);
    }
    return (await repos.users.findById(userId))!;
  });
}
