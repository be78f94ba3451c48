import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import { createAccount } from './create-account';
import type { IdentityDeps } from './identity-deps';
import { assertAcceptablePassword } from './password-policy';

/**
 * Platform administration from the command line: makes `email` a superadmin. A new email gets an account
 * (with its own organization, like sign-up) whose password must pass the password policy; an existing
 * account is promoted and its password replaced, and every token it holds is refused from then on.
 */
export async function ensureSuperadmin(
  deps: IdentityDeps,
  repos: Repositories,
  input: { email: string; password: string },
): Promise<{ userId: string; email: string; created: boolean }> {
  const email = input.email.trim().toLowerCase();
  if (!/^[^\s@]+@[^\s@]+\.[^\s@]+$/.test(email)) throw new DomainError('VALIDATION', 'email must be an email address');
  assertAcceptablePassword(deps.passwordPolicy, input.password);
  const passwordHash = await deps.passwords.hash(input.password);
  const now = deps.clock.now().toISOString();
  const existing = await repos.users.findByEmail(email);
  if (existing) {
    await repos.users.update(existing.id, { platformRole: 'superadmin', passwordHash }, now);
    await repos.users.bumpTokenVersion(existing.id, now);
    return { userId: existing.id, email, created: false };
  }
  const user = await createAccount(deps, repos, {
    email,
    displayName: email.split('@')[0]!,
    passwordHash,
    accountType: 'password',
    emailVerified: true,
    organizationName: 'Platform administration',
  });
  if (user.platformRole !== 'superadmin') await repos.users.update(user.id, { platformRole: 'superadmin' }, now);
  return { userId: user.id, email, created: true };
}
