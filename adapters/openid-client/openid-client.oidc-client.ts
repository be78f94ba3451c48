import { createRemoteJWKSet, customFetch as joseCustomFetch, jwtVerify } from 'jose';
import * as client from 'openid-client';

import type { OidcAuthorizationRequest, OidcClient, OidcProfile, OidcRelyingParty } from '../../core/identity/sso/oidc-client';
import type { OutboundFetcher } from '../../core/ports/outbound-fetcher';
import { DomainError } from '../../core/shared/errors';
import { type FetchLike, guardedFetch } from './guarded-fetch';

export interface OpenIdClientOptions {
  /**
   * Every request to a provider (discovery, JWKS, token, userinfo) goes through it: the SSRF-guarded fetcher of
   * the identity flow (SSO_ALLOWED_HOSTS opens named internal providers).
   */
  fetcher: OutboundFetcher;
  /** How long discovered metadata is reused before it is fetched again. */
  metadataTtlMs?: number;
  /** Minimum time between two JWKS downloads (jose's cooldown): a token with an unknown `kid` refetches after it. */
  jwksCooldownMs?: number;
  timeoutSeconds?: number;
}

interface Discovered {
  /** Provider id + last update: a changed provider is discovered again. */
  version: string;
  at: number;
  config: client.Configuration;
  jwks: ReturnType<typeof createRemoteJWKSet>;
}

const SCOPE = 'openid email profile';
/** Asymmetric only: a provider's ID token is never accepted under a shared secret or `none`. */
const ID_TOKEN_ALGORITHMS = ['RS256', 'RS384', 'RS512', 'PS256', 'PS384', 'PS512', 'ES256', 'ES384', 'ES512', 'EdDSA', 'Ed25519'];

function groupsOf(claims: Record<string, unknown> | undefined, claim: string | null): string[] | undefined {
  if (!claim || !claims || !(claim in claims)) return undefined;
  const value = claims[claim];
  if (Array.isArray(value)) return value.filter((v): v is string => typeof v === 'string');
  return typeof value === 'string' ? [value] : [];
}

/** Network failures are the provider's; anything else it answered (or a token that failed validation) refuses the sign-in. */
function toDomainError(provider: OidcRelyingParty, err: unknown): DomainError {
  if (err instanceof DomainError) return err;
  // The guarded fetcher's refusal (UNSUPPORTED_URL) or failure, when a library wrapped it.
  const cause = (err as { cause?: unknown })?.cause;
  if (cause instanceof DomainError) return cause;
  const e = err as { name?: string; code?: string; message?: string; cause?: { code?: string } };
  // A socket error's code (ECONNREFUSED, EAI_AGAIN, UND_ERR_...), not a validation code (OAUTH_..., ERR_JWT_...).
  const systemCause = /^(E[A-Z]+|EAI_[A-Z]+|UND_ERR_[A-Z_]+)$/.test(e.cause?.code ?? '');
  const unreachable = e.name === 'TypeError' || e.name === 'AbortError' || e.name === 'TimeoutError' || systemCause;
  if (unreachable) return new DomainError('UPSTREAM_FAILED', `${provider.name} could not be reached`);
  return new DomainError('AUTHENTICATION_FAILED', `${provider.name} sign-in failed: ${e.message ?? 'invalid response'}`);
}

/**
 * OpenID Connect relying party on `openid-client` (certified): discovery, authorization code with PKCE S256
 * and a nonce, and the token response's ID token validated (issuer, audience, expiry, nonce) by openid-client.
 * openid-client trusts the ID token's signature when it comes straight from the token endpoint over TLS; this
 * adapter verifies it anyway with `jose` against the provider's JWKS, so a tampered token never passes, and a
 * token signed with a rotated key (unknown `kid`) makes jose download the JWKS again.
 */
export class OpenIdClientOidc implements OidcClient {
  readonly id = 'openid-client';
  private readonly cache = new Map<string, Discovered>();
  private readonly metadataTtlMs: number;
  private readonly jwksCooldownMs: number;
  private readonly timeoutSeconds: number;
  private readonly fetch: FetchLike;

  constructor(options: OpenIdClientOptions) {
    this.metadataTtlMs = options.metadataTtlMs ?? 3_600_000;
    this.jwksCooldownMs = options.jwksCooldownMs ?? 30_000;
    this.timeoutSeconds = options.timeoutSeconds ?? 10;
    this.fetch = guardedFetch(options.fetcher, this.timeoutSeconds * 1000);
  }

  async authorizationUrl(r: OidcAuthorizationRequest): Promise<string> {
    try {
      const { config } = await this.discover(r.provider);
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: r.redirectUri,
        scope: SCOPE,
        state: r.state,
        nonce: r.nonce,
        code_challenge: await client.calculatePKCECodeChallenge(r.codeVerifier),
        code_challenge_method: 'S256',
        ...(r.provider.preset === 'google' ? { prompt: 'select_account' } : {}),
      });
      return url.href;
    } catch (err) {
      throw toDomainError(r.provider, err);
    }
  }

  async complete(r: OidcAuthorizationRequest & { callbackUrl: string }): Promise<OidcProfile> {
    const { provider } = r;
    try {
      const { config, jwks } = await this.discover(provider);
      const tokens = await client.authorizationCodeGrant(
        config,
        new URL(r.callbackUrl),
        { pkceCodeVerifier: r.codeVerifier, expectedState: r.state, expectedNonce: r.nonce, idTokenExpected: true },
        { redirect_uri: r.redirectUri },
      );
      const idToken = tokens.id_token;
      if (!idToken) throw new DomainError('AUTHENTICATION_FAILED', `${provider.name} returned no ID token`);
      const { payload } = await jwtVerify(idToken, jwks, {
        issuer: config.serverMetadata().issuer,
        audience: provider.clientId,
        algorithms: ID_TOKEN_ALGORITHMS,
      });
      const claims = payload as Record<string, unknown>;
      let groups = groupsOf(claims, provider.groupClaim);
      let info: Record<string, unknown> | undefined;
      if (typeof claims.email !== 'string' || (provider.groupClaim && groups === undefined)) {
        info = (await client.fetchUserInfo(config, tokens.access_token, payload.sub!)) as Record<string, unknown>;
        groups ??= groupsOf(info, provider.groupClaim);
      }
      const source = typeof claims.email === 'string' ? claims : (info ?? {});
      const verified = source.email_verified;
      return {
        subject: payload.sub!,
        email: typeof source.email === 'string' ? source.email : null,
        emailVerified: verified === true || verified === 'true',
        name: typeof claims.name === 'string' ? claims.name : typeof info?.name === 'string' ? info.name : null,
        groups: groups ?? [],
      };
    } catch (err) {
      throw toDomainError(provider, err);
    }
  }

  private async discover(provider: OidcRelyingParty): Promise<Discovered> {
    const version = `${provider.id}@${provider.updatedAt}`;
    const hit = this.cache.get(provider.id);
    if (hit && hit.version === version && Date.now() - hit.at < this.metadataTtlMs) return hit;
    const issuer = new URL(provider.issuerUrl);
    // Admin validation only lets an http issuer through on a loopback host (a provider on the same machine).
    const insecure = issuer.protocol === 'http:';
    const found = await client.discovery(issuer, provider.clientId, provider.clientSecret, undefined, {
      timeout: this.timeoutSeconds,
      [client.customFetch]: this.fetch as client.CustomFetch,
      ...(insecure ? { execute: [client.allowInsecureRequests] } : {}),
    });
    const metadata = found.serverMetadata();
    // client_secret_basic is the spec's default; use post only for a provider that does not offer basic.
    const methods = metadata.token_endpoint_auth_methods_supported;
    const auth = !methods || methods.includes('client_secret_basic') ? client.ClientSecretBasic() : client.ClientSecretPost();
    const config = new client.Configuration(metadata, provider.clientId, provider.clientSecret, auth);
    config.timeout = this.timeoutSeconds;
    config[client.customFetch] = this.fetch as client.CustomFetch;
    if (insecure) client.allowInsecureRequests(config);
    if (!metadata.jwks_uri) throw new DomainError('AUTHENTICATION_FAILED', `${provider.name} publishes no JWKS`);
    const jwks = createRemoteJWKSet(new URL(metadata.jwks_uri), {
      cooldownDuration: this.jwksCooldownMs,
      timeoutDuration: this.timeoutSeconds * 1000,
      [joseCustomFetch]: this.fetch,
    });
    const entry = { version, at: Date.now(), config, jwks };
    this.cache.set(provider.id, entry);
    return entry;
  }
}
