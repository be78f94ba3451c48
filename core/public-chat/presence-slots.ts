import { DomainError } from '../shared/errors';

/** Open presence streams allowed at once per anonymousId and per client IP (PUBLIC_PRESENCE_STREAMS_PER_*). */
export interface PresenceStreamLimits {
  perVisitor: number;
  perIp: number;
}

export const DEFAULT_PRESENCE_STREAM_LIMITS: PresenceStreamLimits = { perVisitor: 5, perIp: 50 };

/**
 * Caps the presence SSE streams (GET .../conversations/:id/events) open at once, per anonymousId and per client
 * IP, in this process. A visitor needs one stream per open tab; without a cap one anonymousId could hold
 * thousands of sockets and bus subscriptions. Over either cap: RATE_LIMITED (429) before the stream opens; the
 * slot is freed when the stream closes.
 *
 * Per process on purpose: a slot is held for as long as a socket is open, so a counter shared across replicas
 * (Redis) would need leases renewed by every stream and would leak slots whenever a replica dies; the resource
 * being protected (sockets, subscriptions, memory) is per process anyway. With N replicas behind a balancer a
 * visitor may hold up to N times the cap, still bounded.
 */
export class PresenceStreamSlots {
  private readonly open = new Map<string, number>();

  constructor(readonly limits: PresenceStreamLimits = DEFAULT_PRESENCE_STREAM_LIMITS) {}

  /** Takes a slot for the visitor and the address, or throws RATE_LIMITED; the returned release is idempotent. */
  acquire(who: { anonymousId: string; clientIp: string }): () => void {
    const keys: [string, number][] = [[`visitor:${who.anonymousId}`, this.limits.perVisitor]];
    if (who.clientIp) keys.push([`ip:${who.clientIp}`, this.limits.perIp]);
    const full = keys.find(([key, max]) => (this.open.get(key) ?? 0) >= max);
    if (full) {
      const what = full[0].startsWith('visitor:') ? `${full[1]} per visitor` : `${full[1]} per address`;
      throw new DomainError('RATE_LIMITED', `Too many open presence streams (at most ${what}); close one and retry`, {
        retryAfterSeconds: 1,
      });
    }
    for (const [key] of keys) this.open.set(key, (this.open.get(key) ?? 0) + 1);
    let released = false;
    return () => {
      if (released) return;
      released = true;
      for (const [key] of keys) {
        const n = (this.open.get(key) ?? 1) - 1;
        if (n > 0) this.open.set(key, n);
        else this.open.delete(key);
      }
    };
  }

  /** Streams open now for this key (`visitor:<anonymousId>` or `ip:<address>`); for tests and metrics. */
  count(key: string): number {
    return this.open.get(key) ?? 0;
  }

  /** Visitors and addresses holding at least one slot. */
  get holders(): number {
    return this.open.size;
  }
}
