import { audit } from '../../audit/audit-log';
import type { Repositories } from '../../ports/repositories';
import { DomainError, notFound } from '../../shared/errors';
import type { Actor } from '../actor';
import { assertActive } from '../authenticate';
import type { IdentityDeps } from '../identity-deps';
import { issueSession, type Session } from '../session';
import type { User } from '../user';
import type { OidcClient, OidcProfile } from './oidc-client';
import { emailDomainAllowed, emailDomainListed, roleForGroups, type SsoProvider } from './sso-provider';

const STATE_TTL_MS = 10 * 60 * 1000;

/** Where to send the browser, and the state the route binds to that browser (a cookie checked at the callback). */
export interface SsoFlowStart {
  url: string;
  state: string;
}

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

async function startFlow(
  deps: IdentityDeps,
  oidc: OidcClient,
  slug: string,
  redirectUri: string,
  userId: string | null,
): Promise<SsoFlowStart> {
  const provider = await enabledProvider(deps, slug);
  const state = deps.ids.secret(24);
  const nonce = deps.ids.secret(24);
  const codeVerifier = deps.ids.secret(48);
  const expiresAt = new Date(deps.clock.now().getTime() + STATE_TTL_MS).toISOString();
  // The provider is asked first: one that cannot be reached (or is refused by the SSRF guard) leaves no state.
  const url = await oidc.authorizationUrl({ provider, redirectUri, state, nonce, codeVerifier });
  await deps.store.repos.ssoStates.create({ state, providerId: provider.id, codeVerifier, nonce, expiresAt, userId });
  return { url, state };
}

/** Remembers state, nonce and PKCE verifier, and returns the provider's authorization URL. */
export function startSsoSignIn(deps: IdentityDeps, oidc: OidcClient, slug: string, redirectUri: string): Promise<SsoFlowStart> {
  return startFlow(deps, oidc, slug, redirectUri, null);
}

/**
 * The same flow for the signed-in user: its callback links the provider's identity to this user (the way to
 * link a provider that may not link by email, docs/contracts.md "Single sign-on").
 */
export function startSsoLink(deps: IdentityDeps, oidc: OidcClient, actor: Actor, slug: string, redirectUri: string): Promise<SsoFlowStart> {
  return startFlow(deps, oidc, slug, redirectUri, actor.userId);
}

/**
 * Completes sign-in: the account already linked to this provider subject, else an existing account with the
 * same email only when the provider lists the email's domain and verified the email (else 409 account_exists:
 * the user signs in as before and links the provider while signed in), else a new account. A flow started by
 * startSsoLink links the identity to that user instead. The user joins the provider's organization when the
 * provider lists their email's domain (seats checked, audited); with a group mapping, a member's role follows the
 * groups at every sign-in.
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
    const asserted = { ...profile, email };
    const user = saved.userId
      ? await linkToUser(deps, repos, provider, asserted, saved.userId)
      : await findOrCreateUser(deps, repos, provider, asserted);
    assertActive(user);
    const member = await joinOrganization(deps, repos, provider, user, profile.groups);
    return issueSession(deps, repos, user, member ? provider.organizationId : null);
  });
}

const linkIdentity = (deps: IdentityDeps, repos: Repositories, provider: SsoProvider, subject: string, userId: string) =>
  repos.ssoIdentities.link({ providerId: provider.id, subject, userId, createdAt: deps.clock.now().toISOString() });

/** The callback of a link flow: the identity becomes the starting user's, unless another user holds it. */
async function linkToUser(
  deps: IdentityDeps,
  repos: Repositories,
  provider: SsoProvider,
  profile: OidcProfile & { email: string },
  userId: string,
): Promise<User> {
  const user = await repos.users.findById(userId);
  if (!user) throw new DomainError('VALIDATION', 'Sign-in state is invalid or expired; start again');
  const linkedId = await repos.ssoIdentities.findUserId(provider.id, profile.subject);
  if (linkedId && linkedId !== user.id)
    throw new DomainError('ACCOUNT_EXISTS', `This ${provider.name} account is already linked to another user`);
  if (!linkedId) await linkIdentity(deps, repos, provider, profile.subject, user.id);
  return user;
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
  const existing = await repos.users.findByEmail(profile.email);
  if (existing) {
    // A provider speaks only for the domains it lists: any other IdP could assert any address.
    if (!emailDomainListed(provider, profile.email) || !profile.emailVerified)
      throw new DomainError('ACCOUNT_EXISTS', `An account with this email exists; sign in to it and link ${provider.name} from there`);
    await linkIdentity(deps, repos, provider, profile.subject, existing.id);
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
  await linkIdentity(deps, repos, provider, profile.subject, user.id);
  return user;
}

/**
 * Keeps a member's role in step with the groups, or makes the user a member when the provider lists their
 * email's domain and a seat is free (as invitations count them: members plus pending invitations). Returns
 * whether the user is a member afterwards.
 */
async function joinOrganization(deps: IdentityDeps, repos: Repositories, provider: SsoProvider, user: User, groups: string[]) {
  const orgId = provider.organizationId;
  const role = roleForGroups(provider, groups);
  const membership = await repos.memberships.find(orgId, user.id);
  if (membership) {
    // Owners are never demoted by a group mapping; without a mapping the role is the organization's business.
    if (Object.keys(provider.groupRoles).length > 0 && membership.role !== 'owner' && membership.role !== role)
      await repos.memberships.updateRole(orgId, user.id, role);
    return true;
  }
  if (!emailDomainListed(provider, user.email)) return false;
  const org = await repos.organizations.findById(orgId);
  if (!org) throw new DomainError('NOT_CONFIGURED', `The organization of ${provider.name} no longer exists`);
  await repos.invitations.lockOrganization(orgId);
  const now = deps.clock.now().toISOString();
  const [used, pending] = await Promise.all([repos.memberships.count(orgId), repos.invitations.countPending(orgId, now)]);
  if (used + pending >= org.plan.seats)
    throw new DomainError('SEATS_EXHAUSTED', `All ${org.plan.seats} seats of ${org.name} are used or held by pending invitations`);
  await repos.memberships.add({ organizationId: orgId, userId: user.id, role, createdAt: now });
  await audit(deps, repos, user.id, orgId, 'member.join_sso', ['user', user.id], { provider: provider.slug, role, email: user.email });
  return true;
}
