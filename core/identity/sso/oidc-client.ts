import type { SsoProvider } from './sso-provider';

/** What a provider asserted about the user, from a validated ID token (and userinfo when the token lacks it). */
export interface OidcProfile {
  subject: string;
  email: string | null;
  emailVerified: boolean;
  name: string | null;
  /** Values of the provider's group claim (empty when it has none). */
  groups: string[];
}

/**
 * What the relying party needs of a provider: an administrator's SsoProvider, or the Google preset the
 * GOOGLE_* settings configure. `id` + `updatedAt` key the cached discovery document.
 */
export type OidcRelyingParty = Pick<
  SsoProvider,
  'id' | 'name' | 'preset' | 'issuerUrl' | 'clientId' | 'clientSecret' | 'groupClaim' | 'updatedAt'
>;

export interface OidcAuthorizationRequest {
  provider: OidcRelyingParty;
  redirectUri: string;
  state: string;
  nonce: string;
  codeVerifier: string;
}

/**
 * An OpenID Connect relying party: discovery, authorization code + PKCE (S256), and ID-token validation
 * (signature against the provider's JWKS, issuer, audience, expiry, nonce). Throws DomainError
 * AUTHENTICATION_FAILED when the provider's answer does not validate, UPSTREAM_FAILED when it cannot be reached.
 */
export interface OidcClient {
  authorizationUrl(request: OidcAuthorizationRequest): Promise<string>;
  /** `callbackUrl` is the full URL the provider redirected the browser to (code and state in its query). */
  complete(request: OidcAuthorizationRequest & { callbackUrl: string }): Promise<OidcProfile>;
}
export const OIDC_CLIENT = Symbol.for('OidcClient');
