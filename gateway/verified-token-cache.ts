import type { AccessTokenClaims, TokenSigner } from '../core/identity/token-claims';
import type { Clock } from '../core/ports/clock';

/**
 * Remembers access tokens that verified, so a client sending the same token on every request pays the HMAC
 * and JSON parsing once. Keyed by the exact token string; expiry is checked again on every hit; failures are
 * never cached (random garbage cannot fill it). Bounded: the oldest entry goes when full.
 */
export class VerifiedTokenCache {
  private readonly entries = new Map<string, AccessTokenClaims>();

  constructor(
    private readonly signer: TokenSigner,
    private readonly clock: Clock,
    private readonly maxEntries = 5000,
  ) {}

  async verifyAccess(token: string): Promise<AccessTokenClaims | null> {
    const cached = this.entries.get(token);
    if (cached) {
      if (cached.exp * 1000 > this.clock.now().getTime()) return cached;
      this.entries.delete(token);
      return null;
    }
    const claims = await this.signer.verify(token, 'access');
    if (claims && this.maxEntries > 0) {
      if (this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value as string);
      this.entries.set(token, claims);
    }
    return claims;
  }
}
