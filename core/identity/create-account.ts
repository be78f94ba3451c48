import type { Repositories } from '../ports/repositories';
import { uniqueSlug } from '../shared/slug';
import type { IdentityDeps } from './identity-deps';
import type { AccountType, User } from './user';

export interface NewAccount {
  email: string;
  displayName: string;
  passwordHash: string | null;
  accountType: AccountType;
  emailVerified: boolean;
  googleSubject?: string | null;
  organizationName: string;
}

/** A user, their first organization (they own it) and its wallet with the starting credits. */
export async function createAccount(deps: IdentityDeps, repos: Repositories, input: NewAccount): Promise<User> {
  const now = deps.clock.now().toISOString();
  const email = input.email.toLowerCase();
  const user: User = {
    id: deps.ids.uuid(),
    email,
    displayName: input.displayName,
    passwordHash: input.passwordHash,
    emailVerified: input.emailVerified,
    accountType: input.accountType,
    platformRole: deps.settings.superadminEmails.includes(email) ? 'superadmin' : 'user',
    status: 'active',
    googleSubject: input.googleSubject ?? null,
    createdAt: now,
    updatedAt: now,
  };
  await repos.users.create(user);
  const organizationId = deps.ids.uuid();
  const slug = await uniqueSlug(
    input.organizationName,
    (s) => repos.organizations.slugExists(s),
    () => deps.ids.secret(6),
  );
  await repos.organizations.create({
    id: organizationId,
    name: input.organizationName,
    slug,
    plan: { ...deps.settings.plan },
    createdAt: now,
  });
  await repos.memberships.add({ organizationId, userId: user.id, role: 'owner', createdAt: now });
  await repos.wallets.create({ organizationId, balanceUsd: deps.settings.initialCreditsUsd, updatedAt: now });
  await repos.billingEvents.record({
    id: deps.ids.uuid(),
    organizationId,
    kind: 'initial_credit',
    model: null,
    promptTokens: 0,
    completionTokens: 0,
    providerCostUsd: 0,
    costUsd: -deps.settings.initialCreditsUsd,
    reference: {},
    createdAt: now,
  });
  return user;
}
