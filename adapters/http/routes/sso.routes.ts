import type { ssoOperations } from '../../../contracts/operations/sso';
import type { IdentityDeps } from '../../../core/identity/identity-deps';
import type { OidcClient } from '../../../core/identity/sso/oidc-client';
import {
  createSsoProvider,
  deleteSsoProvider,
  getSsoProvider,
  listSsoProviders,
  updateSsoProvider,
} from '../../../core/identity/sso/sso-admin';
import { completeSsoSignIn, listSignInProviders, startSsoSignIn } from '../../../core/identity/sso/sso-sign-in';
import { DomainError } from '../../../core/shared/errors';
import { type HandlerMap, requireActor, typedHandlers } from '../handler';
import { setSessionCookie } from '../session-cookie';

export interface SsoRouteDeps {
  identity: IdentityDeps;
  oidc: OidcClient;
  /** Public base URL of the gateway (redirect URIs); read per request, as PORT=0 learns it after boot. */
  readonly publicUrl: string;
  /** Where the browser lands after sign-in; read per request too. */
  readonly appUrl: string;
}

export function ssoRoutes(d: SsoRouteDeps): HandlerMap {
  const redirectUri = (slug: string) => `${d.publicUrl.replace(/\/$/, '')}/api/auth/sso/${slug}/callback`;
  return typedHandlers<typeof ssoOperations>()({
    ssoProviders: async () => ({ status: 200, body: { providers: await listSignInProviders(d.identity) } }),
    ssoStart: async ({ params, res }) => {
      res.redirect(302, await startSsoSignIn(d.identity, d.oidc, params.slug, redirectUri(params.slug)));
    },
    ssoCallback: async (ctx) => {
      const { query, params, req, res } = ctx;
      if (query.error) throw new DomainError('AUTHENTICATION_FAILED', `Sign-in was not completed: ${query.error}`);
      if (!query.code || !query.state) throw new DomainError('VALIDATION', 'code and state are required');
      const uri = redirectUri(params.slug);
      // The URL the provider sent the browser to: its redirect URI plus the query it added (code, state, iss).
      const search = req.originalUrl.includes('?') ? req.originalUrl.slice(req.originalUrl.indexOf('?')) : '';
      const session = await completeSsoSignIn(d.identity, d.oidc, params.slug, {
        state: query.state,
        callbackUrl: `${uri}${search}`,
        redirectUri: uri,
      });
      const fragment = new URLSearchParams({ accessToken: session.accessToken, refreshToken: session.refreshToken });
      setSessionCookie(req, res, session.accessToken, d.identity.settings.accessTokenSeconds);
      res.redirect(302, `${d.appUrl.replace(/\/$/, '')}/auth/callback#${fragment}`);
    },
    createSsoProvider: async (ctx) => ({
      status: 201,
      body: { provider: await createSsoProvider(d.identity, requireActor(ctx), ctx.body) },
    }),
    listSsoProviders: async (ctx) => ({ status: 200, body: { providers: await listSsoProviders(d.identity, requireActor(ctx)) } }),
    getSsoProvider: async (ctx) => ({
      status: 200,
      body: { provider: await getSsoProvider(d.identity, requireActor(ctx), ctx.params.id) },
    }),
    updateSsoProvider: async (ctx) => ({
      status: 200,
      body: { provider: await updateSsoProvider(d.identity, requireActor(ctx), ctx.params.id, ctx.body) },
    }),
    deleteSsoProvider: async (ctx) => {
      await deleteSsoProvider(d.identity, requireActor(ctx), ctx.params.id);
      return { status: 204 };
    },
  });
}
