import type { Clock } from '../../core/ports/clock';
import type { NonceRegistry } from '../../core/ports/nonce-registry';

const systemClock: Clock = { now: () => new Date() };

/**
 * Nonces of this process in a Map that keeps insertion order: expired entries are swept from the front as
 * new ones arrive, so memory follows the request rate over one signature window.
 */
export class InProcessNonceRegistry implements NonceRegistry {
  readonly id = 'in-process';
  private readonly seen = new Map<string, number>();

  constructor(private readonly clock: Clock = systemClock) {}

  get size(): number {
    return this.seen.size;
  }

  async claim(nonce: string, ttlMs: number): Promise<boolean> {
    return this.claimSync(nonce, ttlMs);
  }

  claimSync(nonce: string, ttlMs: number): boolean {
    const now = this.clock.now().getTime();
    for (const [n, expiresAt] of this.seen) {
      if (expiresAt > now) break;
      this.seen.delete(n);
    }
    const known = this.seen.get(nonce);
    if (known !== undefined && known > now) return false;
    this.seen.delete(nonce);
    this.seen.set(nonce, now + ttlMs);
    return true;
  }

  async close(): Promise<void> {
    this.seen.clear();
  }
}
