import type { identityOperations } from '../../../contracts/operations/identity';
import { type ApiKeyDeps, createApiKey, listApiKeys, revokeApiKey } from '../../../core/api-keys/api-keys';
import { login, refresh, register, switchOrganization } from '../../../core/identity/authenticate';
import { completeGoogleSignIn, type GoogleSignIn, startGoogleSignIn } from '../../../core/identity/google-sign-in';
import type { IdentityDeps } from '../../../core/identity/identity-deps';
import { toOrganizationClaims, toUserView } from '../../../core/identity/session';
import { acceptInvitation, inviteMember, listInvitations, revokeInvitation } from '../../../core/organizations/invitations';
import { changeMemberRole, getSeatUsage, listMembers, removeMember } from '../../../core/organizations/members';
import type { OrganizationDeps } from '../../../core/organizations/organization-deps';
import { DomainError } from '../../../core/shared/errors';
import { type HandlerContext, type HandlerMap, requireActor, requireApiKey, typedHandlers } from '../handler';
import { setSessionCookie } from '../session-cookie';

export interface IdentityRouteDeps {
  identity: IdentityDeps;
  organizations: OrganizationDeps;
  apiKeys: ApiKeyDeps;
  /** Google sign-in (the OIDC relying party and the GOOGLE_* preset, null provider when not configured). */
  google: GoogleSignIn;
  /** Public base URL of the gateway (for the OAuth redirect URI); read per request, as PORT=0 learns it after boot. */
  readonly publicUrl: string;
  /** Where the browser lands after Google sign-in; read per request too. */
  readonly appUrl: string;
}

const ok = <T>(data: T, status = 200) => ({ status, body: { success: true, data } });

export function identityRoutes(d: IdentityRouteDeps): HandlerMap {
  const googleRedirectUri = () => `${d.publicUrl.replace(/\/$/, '')}/api/auth/google/callback`;
  /** Every session also goes out as the HttpOnly access_token cookie (for browsers). */
  const withCookie = <T extends { accessToken: string }>(ctx: Pick<HandlerContext, 'req' | 'res'>, session: T): T => {
    setSessionCookie(ctx.req, ctx.res, session.accessToken, d.identity.settings.accessTokenSeconds);
    return session;
  };
  return typedHandlers<typeof identityOperations>()({
    register: async (ctx) => ok(withCookie(ctx, await register(d.identity, ctx.body, ctx.identity.clientIp || null)), 201),
    login: async (ctx) => ok(withCookie(ctx, await login(d.identity, ctx.body, ctx.identity.clientIp || null))),
    refresh: async (ctx) => ok(withCookie(ctx, await refresh(d.identity, ctx.body.refreshToken))),
    switchOrganization: async (ctx) =>
      ok(withCookie(ctx, await switchOrganization(d.identity, requireActor(ctx).userId, ctx.body.organizationId))),
    me: async (ctx) => {
      const actor = requireActor(ctx);
      const repos = d.identity.store.repos;
      const [user, memberships] = await Promise.all([repos.users.findById(actor.userId), repos.memberships.listForUser(actor.userId)]);
      if (!user) throw new DomainError('AUTHENTICATION_FAILED', 'Unknown user');
      return { status: 200, body: { user: toUserView(user, toOrganizationClaims(memberships, actor.organizationId)) } };
    },
    googleStart: async ({ res }) => {
      res.redirect(302, await startGoogleSignIn(d.identity, d.google, googleRedirectUri()));
    },
    googleCallback: async (ctx) => {
      const { query, res } = ctx;
      if (query.error) throw new DomainError('AUTHENTICATION_FAILED', `Google sign-in was not completed: ${query.error}`);
      if (!query.code || !query.state) throw new DomainError('VALIDATION', 'code and state are required');
      // The URL Google sent the browser to: the redirect URI plus the query it added (code, state, scope...).
      const search = ctx.req.originalUrl.includes('?') ? ctx.req.originalUrl.slice(ctx.req.originalUrl.indexOf('?')) : '';
      const session = await completeGoogleSignIn(d.identity, d.google, {
        state: query.state,
        callbackUrl: `${googleRedirectUri()}${search}`,
        redirectUri: googleRedirectUri(),
      });
      const fragment = new URLSearchParams({ accessToken: session.accessToken, refreshToken: session.refreshToken });
      setSessionCookie(ctx.req, res, session.accessToken, d.identity.settings.accessTokenSeconds);
      res.redirect(302, `${d.appUrl.replace(/\/$/, '')}/auth/callback#${fragment}`);
    },
    createInvitation: async (ctx) => ({
      status: 201,
      body: await inviteMember(d.organizations, requireActor(ctx), ctx.params.orgId, ctx.body),
    }),
    listInvitations: async (ctx) => ({
      status: 200,
      body: { invitations: await listInvitations(d.organizations, requireActor(ctx), ctx.params.orgId) },
    }),
    revokeInvitation: async (ctx) => {
      await revokeInvitation(d.organizations, requireActor(ctx), ctx.params.orgId, ctx.params.id);
      return { status: 204 };
    },
    acceptInvitation: async (ctx) => ({ status: 200, body: await acceptInvitation(d.organizations, requireActor(ctx), ctx.body.token) }),
    listMembers: async (ctx) => ({
      status: 200,
      body: { members: await listMembers(d.organizations, requireActor(ctx), ctx.params.orgId) },
    }),
    changeMemberRole: async (ctx) => ({
      status: 200,
      body: { member: await changeMemberRole(d.organizations, requireActor(ctx), ctx.params.orgId, ctx.params.userId, ctx.body.role) },
    }),
    removeMember: async (ctx) => {
      await removeMember(d.organizations, requireActor(ctx), ctx.params.orgId, ctx.params.userId);
      return { status: 204 };
    },
    seatUsage: async (ctx) => ({ status: 200, body: await getSeatUsage(d.organizations, requireActor(ctx), ctx.params.orgId) }),
    createApiKey: async (ctx) => ({ status: 201, body: await createApiKey(d.apiKeys, requireActor(ctx), ctx.body) }),
    listApiKeys: async (ctx) => ({ status: 200, body: { apiKeys: await listApiKeys(d.apiKeys, requireActor(ctx)) } }),
    revokeApiKey: async (ctx) => {
      await revokeApiKey(d.apiKeys, requireActor(ctx), ctx.params.id);
      return { status: 204 };
    },
    apiKeyWhoami: async (ctx) => {
      const key = requireApiKey(ctx);
      return { status: 200, body: { organizationId: key.organizationId, keyId: key.keyId, scopes: key.scopes } };
    },
  });
}
