import { conflict, DomainError, notFound, validation } from '../../shared/errors';
import type { Actor } from '../actor';
import type { IdentityDeps } from '../identity-deps';
import { requireSuperadmin } from '../policy';
import type { OrgRole } from '../roles';
import { SSO_PRESETS, type SsoPreset, type SsoProvider, type SsoProviderView, toSsoProviderView } from './sso-provider';

export interface SsoProviderInput {
  slug: string;
  name: string;
  preset?: SsoPreset;
  issuerUrl?: string;
  clientId: string;
  clientSecret: string;
  allowedEmailDomains?: string[];
  organizationId: string;
  defaultRole?: OrgRole;
  groupClaim?: string | null;
  /** Group value → role (checked here: the values come from the request). */
  groupRoles?: Record<string, unknown>;
  enabled?: boolean;
}

/** A provider never hands out ownership: owners are made inside the organization. */
const GRANTABLE: readonly OrgRole[] = ['admin', 'editor', 'member', 'viewer'];
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

function checkRole(role: unknown, where: string): asserts role is OrgRole {
  if (!(GRANTABLE as readonly unknown[]).includes(role)) throw validation(`${where} must be one of ${GRANTABLE.join(', ')}`);
}

/** https only (http is allowed for a loopback issuer, i.e. a provider on the same host). */
function checkIssuer(issuerUrl: string): string {
  let url: URL;
  try {
    url = new URL(issuerUrl);
  } catch {
    throw validation('issuerUrl must be an absolute URL');
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname))) throw validation('issuerUrl must use https');
  if (url.search || url.hash) throw validation('issuerUrl must not have a query or fragment');
  return url.href.replace(/\/$/, '');
}

async function build(deps: IdentityDeps, input: SsoProviderInput, base: Pick<SsoProvider, 'id' | 'createdAt'>): Promise<SsoProvider> {
  const preset = input.preset ?? 'oidc';
  const issuer = input.issuerUrl ?? SSO_PRESETS[preset];
  if (!issuer) throw validation('issuerUrl is required unless a preset supplies it');
  const defaultRole = input.defaultRole ?? 'member';
  checkRole(defaultRole, 'defaultRole');
  const groupRoles: Record<string, OrgRole> = {};
  for (const [group, role] of Object.entries(input.groupRoles ?? {})) {
    checkRole(role, `groupRoles["${group}"]`);
    groupRoles[group] = role;
  }
  if (Object.keys(groupRoles).length > 0 && !input.groupClaim) throw validation('groupRoles needs a groupClaim');
  if (!(await deps.store.repos.organizations.findById(input.organizationId))) throw validation('organizationId names no organization');
  return {
    ...base,
    slug: input.slug,
    name: input.name.trim(),
    preset,
    issuerUrl: checkIssuer(issuer),
    clientId: input.clientId,
    clientSecret: input.clientSecret,
    allowedEmailDomains: [...new Set((input.allowedEmailDomains ?? []).map((d) => d.trim().toLowerCase().replace(/^@/, '')))],
    organizationId: input.organizationId,
    defaultRole,
    groupClaim: input.groupClaim ?? null,
    groupRoles,
    enabled: input.enabled ?? true,
    updatedAt: deps.clock.now().toISOString(),
  };
}

export async function createSsoProvider(deps: IdentityDeps, actor: Actor, input: SsoProviderInput): Promise<SsoProviderView> {
  requireSuperadmin(actor);
  if (await deps.store.repos.ssoProviders.findBySlug(input.slug)) throw conflict(`A sign-in provider with slug "${input.slug}" exists`);
  const provider = await build(deps, input, { id: deps.ids.uuid(), createdAt: deps.clock.now().toISOString() });
  await deps.store.repos.ssoProviders.create(provider);
  return toSsoProviderView(provider);
}

export async function listSsoProviders(deps: IdentityDeps, actor: Actor): Promise<SsoProviderView[]> {
  requireSuperadmin(actor);
  return (await deps.store.repos.ssoProviders.list()).map(toSsoProviderView);
}

async function existing(deps: IdentityDeps, actor: Actor, id: string): Promise<SsoProvider> {
  requireSuperadmin(actor);
  const provider = await deps.store.repos.ssoProviders.findById(id);
  if (!provider) throw notFound('Sign-in provider');
  return provider;
}

export const getSsoProvider = async (deps: IdentityDeps, actor: Actor, id: string) => toSsoProviderView(await existing(deps, actor, id));

/** Replaces the settings; an omitted clientSecret keeps the stored one. */
export async function updateSsoProvider(
  deps: IdentityDeps,
  actor: Actor,
  id: string,
  input: Omit<SsoProviderInput, 'clientSecret'> & { clientSecret?: string },
): Promise<SsoProviderView> {
  const current = await existing(deps, actor, id);
  const other = await deps.store.repos.ssoProviders.findBySlug(input.slug);
  if (other && other.id !== id) throw conflict(`A sign-in provider with slug "${input.slug}" exists`);
  const provider = await build(deps, { ...input, clientSecret: input.clientSecret ?? current.clientSecret }, current);
  await deps.store.repos.ssoProviders.update(provider);
  return toSsoProviderView(provider);
}

export async function deleteSsoProvider(deps: IdentityDeps, actor: Actor, id: string): Promise<void> {
  await existing(deps, actor, id);
  if (!(await deps.store.repos.ssoProviders.delete(id))) throw new DomainError('NOT_FOUND', 'Sign-in provider not found');
}
