import type { Repositories } from '../ports/repositories';
import { toOrganizationClaims } from './session';
import type { AccessTokenClaims } from './token-claims';

/** What a verified bearer token of the configured external issuer says about its holder. */
export interface ExternalTokenSubject {
  /** The mapped email claim. */
  email: string;
  /** The token's expiry (seconds since the epoch). */
  exp: number;
}

/**
 * Verifies bearer tokens of an external issuer (an enterprise IdP fronting the API): signature against the
 * issuer's JWKS, issuer, audience, expiry. Resolves null for any token that does not verify; rejects only when
 * the issuer's keys cannot be fetched (the gateway then answers 503, not 401).
 */
export interface ExternalTokenVerifier {
  verify(token: string): Promise<ExternalTokenSubject | null>;
}
export const EXTERNAL_TOKEN_VERIFIER = Symbol.for('ExternalTokenVerifier');

/**
 * Claims are recomputed from the user's memberships at least this often: a role change or a removal reaches
 * the gateway's token cache within a minute, while a client repeating its token costs one lookup a minute.
 */
export const EXTERNAL_CLAIMS_MAX_AGE_SECONDS = 60;

/**
 * The access claims a platform token issued now would carry for the platform user with the token's email
 * (organizations in membership order, the first active), or null when the token does not verify or no active
 * user has that email. `exp` is the token's expiry or a minute from now, whichever comes first.
 */
export async function externalAccessClaims(
  repos: Pick<Repositories, 'users' | 'memberships'>,
  verifier: ExternalTokenVerifier,
  token: string,
  now: Date,
): Promise<AccessTokenClaims | null> {
  const subject = await verifier.verify(token);
  if (!subject) return null;
  const user = await repos.users.findByEmail(subject.email.trim().toLowerCase());
  if (!user || user.status !== 'active') return null;
  const memberships = await repos.memberships.listForUser(user.id);
  const iat = Math.floor(now.getTime() / 1000);
  return {
    typ: 'access',
    userId: user.id,
    email: user.email,
    platformRole: user.platformRole,
    organizations: toOrganizationClaims(memberships, null),
    iat,
    exp: Math.min(subject.exp, iat + EXTERNAL_CLAIMS_MAX_AGE_SECONDS),
    tokenVersion: user.tokenVersion ?? 0,
  };
}
