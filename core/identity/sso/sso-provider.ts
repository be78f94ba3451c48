import type { OrgRole } from '../roles';

/** Presets fill in what a well-known provider always has (Google's issuer); `oidc` is any OpenID provider. */
export const SSO_PRESETS = { oidc: null, google: 'https://accounts.google.com' } as const;
export type SsoPreset = keyof typeof SSO_PRESETS;

/**
 * An OpenID Connect provider an administrator configured. New users signing in through it join
 * `organizationId` with `defaultRole`, or with the strongest role `groupRoles` maps one of their `groupClaim`
 * values to.
 */
export interface SsoProvider {
  id: string;
  /** URL segment of its sign-in endpoints: /api/auth/sso/:slug. */
  slug: string;
  name: string;
  preset: SsoPreset;
  issuerUrl: string;
  clientId: string;
  clientSecret: string;
  /**
   * Lower-case domains an email must belong to (empty: any email may sign in). Only emails of a listed domain
   * are linked to an existing account and join `organizationId` (docs/contracts.md "Single sign-on").
   */
  allowedEmailDomains: string[];
  organizationId: string;
  defaultRole: OrgRole;
  /** ID-token (or userinfo) claim holding the user's groups, e.g. `groups`. */
  groupClaim: string | null;
  /** Group value → organization role. */
  groupRoles: Record<string, OrgRole>;
  enabled: boolean;
  createdAt: string;
  updatedAt: string;
}

/** What the API shows: everything but the client secret. */
export type SsoProviderView = Omit<SsoProvider, 'clientSecret'> & { hasClientSecret: boolean };
export const toSsoProviderView = ({ clientSecret, ...rest }: SsoProvider): SsoProviderView => ({
  ...rest,
  hasClientSecret: !!clientSecret,
});

export interface SsoProviderRepository {
  create(provider: SsoProvider): Promise<void>;
  findById(id: string): Promise<SsoProvider | null>;
  findBySlug(slug: string): Promise<SsoProvider | null>;
  list(): Promise<SsoProvider[]>;
  update(provider: SsoProvider): Promise<void>;
  delete(id: string): Promise<boolean>;
}

/** Which platform user an external account (provider + subject) signs in as. */
export interface SsoIdentityRepository {
  findUserId(providerId: string, subject: string): Promise<string | null>;
  link(record: { providerId: string; subject: string; userId: string; createdAt: string }): Promise<void>;
}

/**
 * Sign-in state between the redirect to the provider and its callback (single use). The browser that started
 * the flow holds the state in a cookie too (checked at the callback).
 */
export interface SsoStateRecord {
  state: string;
  providerId: string;
  codeVerifier: string;
  nonce: string;
  expiresAt: string;
  /** Set when a signed-in user started the flow to link the provider to their account; null for a sign-in. */
  userId: string | null;
}

export interface SsoStateRepository {
  create(record: SsoStateRecord): Promise<void>;
  /** Returns and deletes the state. */
  take(state: string): Promise<SsoStateRecord | null>;
}

const ROLE_STRENGTH: Record<OrgRole, number> = { owner: 5, admin: 4, editor: 3, member: 2, viewer: 1 };

/** The strongest role the user's groups map to, else the provider's default role. */
export function roleForGroups(provider: Pick<SsoProvider, 'defaultRole' | 'groupRoles'>, groups: readonly string[]): OrgRole {
  let best: OrgRole | null = null;
  for (const g of groups) {
    const role = provider.groupRoles[g];
    if (role && (!best || ROLE_STRENGTH[role] > ROLE_STRENGTH[best])) best = role;
  }
  return best ?? provider.defaultRole;
}

const domainOf = (email: string) => email.slice(email.lastIndexOf('@') + 1).toLowerCase();

/** Whether an email may sign in through the provider at all: any when it lists no domain. */
export function emailDomainAllowed(provider: Pick<SsoProvider, 'allowedEmailDomains'>, email: string): boolean {
  return provider.allowedEmailDomains.length === 0 || emailDomainListed(provider, email);
}

/**
 * Whether the provider names the email's domain: only then does it speak for that email, i.e. may link it to an
 * existing account and give its organization's membership. An empty list names none.
 */
export function emailDomainListed(provider: Pick<SsoProvider, 'allowedEmailDomains'>, email: string): boolean {
  return provider.allowedEmailDomains.includes(domainOf(email));
}
