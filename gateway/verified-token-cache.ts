import type { AccessTokenClaims, TokenSigner } from '../core/identity/token-claims';
import type { Clock } from '../core/ports/clock';

/** Claims of the platform user an external issuer's token maps to, or null (see GatewayOptions). */
export type ExternalAccessVerifier = (token: string) => Promise<AccessTokenClaims | null>;

/**
 * Remembers access tokens that verified, so a client sending the same token on every request pays the HMAC
 * and JSON parsing once. Keyed by the exact token string; expiry is checked again on every hit (an expired
 * entry is verified afresh: external-issuer claims expire from the cache after a minute, not with the token);
 * failures are never cached (random garbage cannot fill it). Bounded: the oldest entry goes when full.
 * A token the platform's signer refuses is offered to `external` when configured; the signer accepts HS256
 * only and the external verifier RS256/ES256 only, so no token can pass as the other kind.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, AccessTokenClaims>();

  constructor(
    private readonly signer: TokenSigner,
    private readonly clock: Clock,
    private readonly maxEntries = 5000,
    private readonly external: ExternalAccessVerifier | null = null,
  ) {}

  /** The claims of a token that verified and has not expired, without a promise (the hot path); else undefined. */
  remembered(token: string): AccessTokenClaims | undefined {
    const cached = this.entries.get(token);
    if (!cached) return undefined;
    if (cached.exp * 1000 > this.clock.now().getTime()) return cached;
    this.entries.delete(token);
    return undefined;
  }

  async verifyAccess(token: string): Promise<AccessTokenClaims | null> {
    const cached = this.remembered(token);
    if (cached) return cached;
    const claims = (await this.signer.verify(token, 'access')) ?? (this.external ? await this.external(token) : null);
    if (claims && this.maxEntries > 0) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(token, claims);
    }
    return claims;
  }
}
