import type { Repositories } from '../../ports/repositories';
import { DomainError, notFound } from '../../shared/errors';
import { assertActive } from '../authenticate';
import type { IdentityDeps } from '../identity-deps';
import { issueSession, type Session } from '../session';
import type { User } from '../user';
import type { OidcClient, OidcProfile } from './oidc-client';
import { emailDomainAllowed, roleForGroups, type SsoProvider } from './sso-provider';

const STATE_TTL_MS = 10 * 60 * 1000;

/** The enabled providers a sign-in page can offer. */
export async function listSignInProviders(deps: IdentityDeps): Promise<{ slug: string; name: string }[]> {
  const providers = await deps.store.repos.ssoProviders.list();
  return providers.filter((p) => p.enabled).map((p) => ({ slug: p.slug, name: p.name }));
}

async function enabledProvider(deps: IdentityDeps, slug: string): Promise<SsoProvider> {
  const provider = await deps.store.repos.ssoProviders.findBySlug(slug);
  if (!provider || !provider.enabled) throw notFound('Sign-in provider');
  return provider;
}

/** Remembers state, nonce and PKCE verifier, and returns the provider's authorization URL. */
export async function startSsoSignIn(deps: IdentityDeps, oidc: OidcClient, slug: string, redirectUri: string): Promise<string> {
  const provider = await enabledProvider(deps, slug);
  const state = deps.ids.secret(24);
  const nonce = deps.ids.secret(24);
  const codeVerifier = deps.ids.secret(48);
  const expiresAt = new Date(deps.clock.now().getTime() + STATE_TTL_MS).toISOString();
  await deps.store.repos.ssoStates.create({ state, providerId: provider.id, codeVerifier, nonce, expiresAt });
  return oidc.authorizationUrl({ provider, redirectUri, state, nonce, codeVerifier });
}

/**
 * Completes sign-in: the account already linked to this provider subject, else an existing account with the
 * same email when the provider verified it (spec 5.1.6), else a new account. The user joins the provider's
 * organization if not yet a member; with a group mapping, the role follows the groups at every sign-in.
 */
export async function completeSsoSignIn(
  deps: IdentityDeps,
  oidc: OidcClient,
  slug: string,
  input: { state: string; callbackUrl: string; redirectUri: string },
): Promise<Session> {
  const provider = await enabledProvider(deps, slug);
  const saved = await deps.store.repos.ssoStates.take(input.state);
  if (!saved || saved.providerId !== provider.id || saved.expiresAt <= deps.clock.now().toISOString())
    throw new DomainError('VALIDATION', 'Sign-in state is invalid or expired; start again');
  const profile = await oidc.complete({ provider, redirectUri: input.redirectUri, callbackUrl: input.callbackUrl, ...saved });
  if (!profile.email) throw new DomainError('AUTHENTICATION_FAILED', `${provider.name} returned no email address`);
  const email = profile.email.toLowerCase();
  if (!emailDomainAllowed(provider, email))
    throw new DomainError('FORBIDDEN', `Accounts of ${email.slice(email.indexOf('@') + 1)} may not sign in through ${provider.name}`);
  return deps.store.transaction(async (repos) => {
    const user = await findOrCreateUser(deps, repos, provider, { ...profile, email });
    assertActive(user);
    await joinOrganization(deps, repos, provider, user, profile.groups);
    return issueSession(deps, repos, user, provider.organizationId);
  });
}

async function findOrCreateUser(
  deps: IdentityDeps,
  repos: Repositories,
  provider: SsoProvider,
  profile: OidcProfile & { email: string },
): Promise<User> {
  const now = deps.clock.now().toISOString();
  const linkedId = await repos.ssoIdentities.findUserId(provider.id, profile.subject);
  if (linkedId) {
    const linked = await repos.users.findById(linkedId);
    if (linked) return linked;
  }
  const link = (userId: string) => repos.ssoIdentities.link({ providerId: provider.id, subject: profile.subject, userId, createdAt: now });
  const existing = await repos.users.findByEmail(profile.email);
  if (existing) {
    if (!profile.emailVerified)
      throw new DomainError(
        'AUTHENTICATION_FAILED',
        `${provider.name} did not verify this email; it cannot be linked to an existing account`,
      );
    await link(existing.id);
    if (!existing.emailVerified) await repos.users.update(existing.id, { emailVerified: true }, now);
    return { ...existing, emailVerified: true };
  }
  const user: User = {
    id: deps.ids.uuid(),
    email: profile.email,
    displayName: profile.name?.trim() || profile.email.split('@')[0],
    passwordHash: null,
    emailVerified: profile.emailVerified,
    accountType: 'sso',
    platformRole: deps.settings.superadminEmails.includes(profile.email) ? 'superadmin' : 'user',
    status: 'active',
    googleSubject: null,
    createdAt: now,
    updatedAt: now,
  };
  await repos.users.create(user);
  await link(user.id);
  return user;
}

async function joinOrganization(deps: IdentityDeps, repos: Repositories, provider: SsoProvider, user: User, groups: string[]) {
  const orgId = provider.organizationId;
  const role = roleForGroups(provider, groups);
  const membership = await repos.memberships.find(orgId, user.id);
  if (membership) {
    // Owners are never demoted by a group mapping; without a mapping the role is the organization's business.
    if (Object.keys(provider.groupRoles).length > 0 && membership.role !== 'owner' && membership.role !== role)
      await repos.memberships.updateRole(orgId, user.id, role);
    return;
  }
  const org = await repos.organizations.findById(orgId);
  if (!org) throw new DomainError('NOT_CONFIGURED', `The organization of ${provider.name} no longer exists`);
  if ((await repos.memberships.count(orgId)) >= org.plan.seats)
    throw new DomainError('SEATS_EXHAUSTED', `All ${org.plan.seats} seats of ${org.name} are used`);
  await repos.memberships.add({ organizationId: orgId, userId: user.id, role, createdAt: deps.clock.now().toISOString() });
}
