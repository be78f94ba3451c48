import { createRemoteJWKSet, errors, jwtVerify } from 'jose';

import type { ExternalTokenSubject, ExternalTokenVerifier } from '../../core/identity/external-token';
import type { Clock } from '../../core/ports/clock';
import { DomainError } from '../../core/shared/errors';

export interface ExternalIssuerOptions {
  /** Expected `iss`; also where discovery is read when `jwksUrl` is absent. */
  issuer: string;
  /** Expected `aud` (one of the token's audiences). */
  audience: string;
  /** The issuer's JWKS; default: `jwks_uri` of `<issuer>/.well-known/openid-configuration`. */
  jwksUrl?: string;
  /** Claim holding the email that names the platform user. Default `email`. */
  emailClaim?: string;
  /** Minimum time between two JWKS downloads: a token with an unknown `kid` refetches after it (jose's cooldown). */
  jwksCooldownMs?: number;
  /** How long a downloaded JWKS is used before it is fetched again even without an unknown `kid`. */
  jwksMaxAgeMs?: number;
  timeoutMs?: number;
  /** Tolerated clock difference with the issuer, in seconds (expiry and not-before). */
  clockToleranceSeconds?: number;
  /** Injectable transport for discovery (tests); defaults to global fetch. */
  fetch?: typeof fetch;
  /** The platform's clock, for expiry (defaults to the system time). */
  clock?: Clock;
}

/** Asymmetric only: a shared-secret (HS256, e.g. signed with the public key) or unsigned token never passes. */
const ALGORITHMS = ['RS256', 'ES256'];
const MAX_TOKEN_LENGTH = 16 * 1024;
const LOOPBACK = new Set(['localhost', '127.0.0.1', '[::1]']);

/** https only, except a loopback host (an issuer on the same machine, as in tests). */
function secureUrl(value: string, key: string): URL {
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new DomainError('NOT_CONFIGURED', `${key} must be an absolute URL`);
  }
  if (url.protocol !== 'https:' && !(url.protocol === 'http:' && LOOPBACK.has(url.hostname)))
    throw new DomainError('NOT_CONFIGURED', `${key} must use https`);
  return url;
}

/** Fetch failures and timeouts of the JWKS: the issuer is unreachable, which is not the token's fault. */
const unreachable = (err: unknown) => {
  const name = (err as Error | undefined)?.name;
  // by name: fetch's TypeError may come from another realm (a test VM), where instanceof fails
  return err instanceof errors.JWKSTimeout || name === 'TypeError' || name === 'AbortError' || name === 'TimeoutError';
};

/**
 * Bearer tokens of an external OpenID Connect issuer, verified with `jose`: RS256/ES256 signature against the
 * issuer's JWKS (cached; a token with an unknown `kid` makes jose download it again, at most once per cooldown,
 * so rotated keys are picked up and garbage `kid`s cannot flood the issuer), `iss`, `aud`, `exp` required and
 * checked, `nbf` when present. The email comes from the configured claim; `email_verified: false` refuses.
 */
export class ExternalIssuerTokenVerifier implements ExternalTokenVerifier {
  readonly id = 'jose-external-issuer';
  private readonly issuer: string;
  private readonly emailClaim: string;
  private readonly fetch: typeof fetch;
  private jwks?: ReturnType<typeof createRemoteJWKSet>;
  private discovering?: Promise<ReturnType<typeof createRemoteJWKSet>>;

  constructor(private readonly options: ExternalIssuerOptions) {
    secureUrl(options.issuer, 'EXTERNAL_JWT_ISSUER');
    if (options.jwksUrl) this.jwks = this.remoteSet(secureUrl(options.jwksUrl, 'EXTERNAL_JWT_JWKS_URL'));
    if (!options.audience) throw new DomainError('NOT_CONFIGURED', 'EXTERNAL_JWT_AUDIENCE is required with EXTERNAL_JWT_ISSUER');
    this.issuer = options.issuer;
    this.emailClaim = options.emailClaim || 'email';
    this.fetch = options.fetch ?? fetch;
  }

  async verify(token: string): Promise<ExternalTokenSubject | null> {
    if (typeof token !== 'string' || token.length > MAX_TOKEN_LENGTH) return null;
    const jwks = this.jwks ?? (await this.discoverJwks());
    try {
      const { payload } = await jwtVerify(token, jwks, {
        algorithms: ALGORITHMS,
        issuer: this.issuer,
        audience: this.options.audience,
        requiredClaims: ['exp'],
        clockTolerance: this.options.clockToleranceSeconds ?? 30,
        ...(this.options.clock ? { currentDate: this.options.clock.now() } : {}),
      });
      const email = payload[this.emailClaim];
      const verified = payload.email_verified;
      if (typeof email !== 'string' || !email.includes('@') || verified === false || verified === 'false') return null;
      return { email, exp: payload.exp! };
    } catch (err) {
      if (unreachable(err)) throw err;
      return null;
    }
  }

  private remoteSet(url: URL) {
    return createRemoteJWKSet(url, {
      cooldownDuration: this.options.jwksCooldownMs ?? 30_000,
      cacheMaxAge: this.options.jwksMaxAgeMs ?? 600_000,
      timeoutDuration: this.options.timeoutMs ?? 5_000,
    });
  }

  /** One discovery at a time; a failed one is retried by the next request. */
  private discoverJwks(): Promise<ReturnType<typeof createRemoteJWKSet>> {
    this.discovering ??= (async () => {
      const url = new URL(`${this.issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
      const res = await this.fetch(url, { signal: AbortSignal.timeout(this.options.timeoutMs ?? 5_000) });
      if (!res.ok) throw new DomainError('UPSTREAM_FAILED', `Discovery of ${this.issuer} answered ${res.status}`);
      const metadata = (await res.json()) as { issuer?: string; jwks_uri?: string };
      if (metadata.issuer !== this.issuer)
        throw new DomainError('UPSTREAM_FAILED', `Discovery of ${this.issuer} names another issuer (${metadata.issuer})`);
      if (!metadata.jwks_uri) throw new DomainError('UPSTREAM_FAILED', `${this.issuer} publishes no jwks_uri`);
      this.jwks = this.remoteSet(secureUrl(metadata.jwks_uri, 'jwks_uri'));
      return this.jwks;
    })().finally(() => {
      this.discovering = undefined;
    });
    return this.discovering;
  }
}
