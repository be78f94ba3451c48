import { createHash, timingSafeEqual } from 'node:crypto';

import type { Request, Response } from 'express';

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
import {
  completeSsoSignIn,
  listSignInProviders,
  type SsoFlowStart,
  startSsoLink,
  startSsoSignIn,
} from '../../../core/identity/sso/sso-sign-in';
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

/** Lifetime of the state cookie: the lifetime of the stored state. */
const STATE_COOKIE_SECONDS = 10 * 60;

/**
 * The cookie binding a flow's `state` to the browser that started it (docs/contracts.md "Single sign-on"): HttpOnly,
 * SameSite=Lax (sent on the provider's top-level redirect back, not on cross-site subrequests), Path=/. Secure
 * decides as for the access_token cookie (the client reached the gateway over TLS), and the `__Host-` prefix,
 * which browsers accept only on a Secure cookie without Domain and with Path=/, is used exactly then, so that a
 * sibling subdomain or a plain-http page cannot plant one. Over plain http (local development, tests) the
 * cookie is `sso_state`. Each name is read only over its own kind of connection.
 */
function stateCookie(req: Request) {
  const secure = req.headers['x-forwarded-proto'] === 'https';
  return {
    name: secure ? '__Host-sso_state' : 'sso_state',
    options: { httpOnly: true, sameSite: 'lax' as const, secure, path: '/' },
  };
}

function readCookie(req: Request, name: string): string | null {
  for (const part of (req.headers.cookie ?? '').split(';')) {
    const eq = part.indexOf('=');
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim() || null;
  }
  return null;
}

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Whether the browser's cookie holds this flow's state (compared in constant time, over fixed-length digests). */
function startedByThisBrowser(req: Request, state: string): boolean {
  const held = readCookie(req, stateCookie(req).name);
  return held !== null && timingSafeEqual(digest(held), digest(state));
}

function bindToBrowser(req: Request, res: Response, flow: SsoFlowStart): string {
  const { name, options } = stateCookie(req);
  res.cookie(name, flow.state, { ...options, maxAge: STATE_COOKIE_SECONDS * 1000 });
  return flow.url;
}

export function ssoRoutes(d: SsoRouteDeps): HandlerMap {
  const redirectUri = (slug: string) => `${d.publicUrl.replace(/\/$/, '')}/api/auth/sso/${slug}/callback`;
  return typedHandlers<typeof ssoOperations>()({
    ssoProviders: async () => ({ status: 200, body: { providers: await listSignInProviders(d.identity) } }),
    ssoStart: async ({ params, req, res }) => {
      const flow = await startSsoSignIn(d.identity, d.oidc, params.slug, redirectUri(params.slug));
      res.redirect(302, bindToBrowser(req, res, flow));
    },
    ssoLink: async (ctx) => {
      const { params, req, res } = ctx;
      const flow = await startSsoLink(d.identity, d.oidc, requireActor(ctx), params.slug, redirectUri(params.slug));
      return { status: 200, body: { authorizationUrl: bindToBrowser(req, res, flow) } };
    },
    ssoCallback: async (ctx) => {
      const { query, params, req, res } = ctx;
      if (query.error) throw new DomainError('AUTHENTICATION_FAILED', `Sign-in was not completed: ${query.error}`);
      if (!query.code || !query.state) throw new DomainError('VALIDATION', 'code and state are required');
      // Login CSRF: a callback URL started in another browser (the attacker's) carries a state this one never held.
      if (!startedByThisBrowser(req, query.state))
        throw new DomainError('VALIDATION', 'This sign-in was not started in this browser; start again');
      const { name, options } = stateCookie(req);
      res.clearCookie(name, options);
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
