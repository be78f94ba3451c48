import { createHash } from 'node:crypto';

import { DomainError } from '../shared/errors';
import { assertActive } from './authenticate';
import { createAccount } from './create-account';
import type { IdentityDeps } from './identity-deps';
import { issueSession, type Session } from './session';

export interface ExternalProfile {
  subject: string;
  email: string;
  emailVerified: boolean;
  name: string | null;
}

/** The identity provider (Google, or a local fake in tests): authorization-code flow with PKCE. */
export interface OAuthIdentityProvider {
  authorizationUrl(params: { state: string; codeChallenge: string; redirectUri: string }): string;
  exchangeCode(params: { code: string; codeVerifier: string; redirectUri: string }): Promise<ExternalProfile>;
}
export const OAUTH_IDENTITY_PROVIDER = Symbol.for('OAuthIdentityProvider');

const STATE_TTL_MS = 10 * 60 * 1000;
const challengeOf = (verifier: string) => createHash('sha256').update(verifier).digest('base64url');

export async function startGoogleSignIn(deps: IdentityDeps, provider: OAuthIdentityProvider | null, redirectUri: string): Promise<string> {
  if (!provider) throw new DomainError('NOT_CONFIGURED', 'Google sign-in is not configured on this platform');
  const state = deps.ids.secret(24);
  const codeVerifier = deps.ids.secret(48);
  const expiresAt = new Date(deps.clock.now().getTime() + STATE_TTL_MS).toISOString();
  await deps.store.repos.oauthStates.create({ state, codeVerifier, redirectTo: null, expiresAt });
  return provider.authorizationUrl({ state, codeChallenge: challengeOf(codeVerifier), redirectUri });
}

/** Signs in, links an existing account with the same verified email, or creates a new one. */
export async function completeGoogleSignIn(
  deps: IdentityDeps,
  provider: OAuthIdentityProvider | null,
  input: { code: string; state: string; redirectUri: string },
): Promise<Session> {
  if (!provider) throw new DomainError('NOT_CONFIGURED', 'Google sign-in is not configured on this platform');
  const saved = await deps.store.repos.oauthStates.take(input.state);
  if (!saved || saved.expiresAt <= deps.clock.now().toISOString())
    throw new DomainError('VALIDATION', 'Sign-in state is invalid or expired; start again');
  const profile = await provider.exchangeCode({ code: input.code, codeVerifier: saved.codeVerifier, redirectUri: input.redirectUri });
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
