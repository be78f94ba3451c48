import { createHash } from 'node:crypto';

import { DomainError } from '../shared/errors';
import { assertActive } from './authenticate';
import { createAccount } from './create-account';
import type { IdentityDeps } from './identity-deps';
import { issueSession, type Session } from './session';
import type { OidcClient, OidcRelyingParty } from './sso/oidc-client';
import { SSO_PRESETS } from './sso/sso-provider';

/** The GOOGLE_* settings. */
export interface GoogleSignInSettings {
  clientId: string;
  clientSecret: string;
  /** https://accounts.google.com; tests point it at a local provider. */
  issuerUrl: string;
}

/**
 * Google sign-in at /api/auth/google is the `google` preset of OpenID Connect sign-in (discovery, code + PKCE +
 * nonce, ID token verified against Google's JWKS by the OidcClient). Unlike an administrator's provider, it lets
 * anyone with a Google account in: a new user gets an organization of their own, as at registration.
 */
export function googleRelyingParty(settings: GoogleSignInSettings): OidcRelyingParty {
  return {
    id: 'google',
    name: 'Google',
    preset: 'google',
    issuerUrl: (settings.issuerUrl || SSO_PRESETS.google).replace(/\/$/, ''),
    clientId: settings.clientId,
    clientSecret: settings.clientSecret,
    groupClaim: null,
    updatedAt: 'settings',
  };
}
export const GOOGLE_RELYING_PARTY = Symbol.for('GoogleRelyingParty');

export interface GoogleSignIn {
  oidc: OidcClient;
  /** Null when GOOGLE_CLIENT_ID is not set. */
  provider: OidcRelyingParty | null;
}

const STATE_TTL_MS = 10 * 60 * 1000;
/**
 * The nonce is derived from the stored PKCE verifier (which never leaves the server) rather than stored next to
 * it: unguessable, bound to this sign-in, and distinct from the code challenge (a different input to the hash).
 */
const nonceOf = (codeVerifier: string) => createHash('sha256').update(`nonce:${codeVerifier}`).digest('base64url');

function configured(google: GoogleSignIn): OidcRelyingParty {
  if (!google.provider) throw new DomainError('NOT_CONFIGURED', 'Google sign-in is not configured on this platform');
  return google.provider;
}

export async function startGoogleSignIn(deps: IdentityDeps, google: GoogleSignIn, redirectUri: string): Promise<string> {
  const provider = configured(google);
  const state = deps.ids.secret(24);
  const codeVerifier = deps.ids.secret(48);
  const expiresAt = new Date(deps.clock.now().getTime() + STATE_TTL_MS).toISOString();
  await deps.store.repos.oauthStates.create({ state, codeVerifier, redirectTo: null, expiresAt });
  return google.oidc.authorizationUrl({ provider, redirectUri, state, nonce: nonceOf(codeVerifier), codeVerifier });
}

/** Signs in, links an existing account with the same verified email, or creates a new one. */
export async function completeGoogleSignIn(
  deps: IdentityDeps,
  google: GoogleSignIn,
  input: { state: string; callbackUrl: string; redirectUri: string },
): Promise<Session> {
  const provider = configured(google);
  const saved = await deps.store.repos.oauthStates.take(input.state);
  if (!saved || saved.expiresAt <= deps.clock.now().toISOString())
    throw new DomainError('VALIDATION', 'Sign-in state is invalid or expired; start again');
  const { codeVerifier } = saved;
  const profile = await google.oidc.complete({ ...input, provider, codeVerifier, nonce: nonceOf(codeVerifier) });
  if (!profile.email) throw new DomainError('AUTHENTICATION_FAILED', 'Google returned no email address');
  const email = profile.email.toLowerCase();
  return deps.store.transaction(async (repos) => {
    let user = await repos.users.findByGoogleSubject(profile.subject);
    if (!user) {
      const existing = await repos.users.findByEmail(email);
      if (existing) {
        if (!profile.emailVerified)
          throw new DomainError('AUTHENTICATION_FAILED', 'Google did not verify this email; it cannot be linked to an existing account');
        await repos.users.update(existing.id, { googleSubject: profile.subject, emailVerified: true }, deps.clock.now().toISOString());
        user = { ...existing, googleSubject: profile.subject, emailVerified: true };
      } else {
        const displayName = profile.name?.trim() || email.split('@')[0];
        user = await createAccount(deps, repos, {
          email,
          displayName,
          passwordHash: null,
          accountType: 'google',
          emailVerified: profile.emailVerified,
          googleSubject: profile.subject,
          organizationName: `${displayName}'s Organization`,
        });
      }
    }
    assertActive(user);
    return issueSession(deps, repos, user, null);
  });
}
