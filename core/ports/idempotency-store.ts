/**
 * The records behind `Idempotency-Key` on the POSTs of `/api` and `/v1` (docs/contracts.md "Delivery guarantees"): one
 * per scope (an organization, `anon:<anonymousId>` on the public lane...) and key, claimed before the request
 * runs and completed with its answer, so that the same request again within 24 hours is answered from it.
 * Shared by every api replica (the database), so a retry that lands on another process still finds it.
 */

/** The answer kept for replays. `body` is opaque here (the HTTP adapter seals it); null when it was not kept. */
export interface StoredAnswer {
  status: number;
  /** The headers worth replaying (content type, location), lower-case names. */
  headers: Record<string, string>;
  body: Uint8Array | null;
  /** False when the request ran but its answer cannot be replayed (a stream cut off, an answer too large to keep). */
  replayable: boolean;
}

export interface IdempotencyRecord {
  scope: string;
  /** The key as stored (the HTTP adapter stores a digest of it, not the key). */
  keyHash: string;
  method: string;
  path: string;
  /** What makes two requests the same (method, path, caller and body). */
  fingerprint: string;
  state: 'in_progress' | 'completed';
  answer: StoredAnswer | null;
  createdAt: string;
  expiresAt: string;
}

export interface IdempotencyClaim {
  scope: string;
  keyHash: string;
  method: string;
  path: string;
  fingerprint: string;
  /** Identifies this claim: only its holder completes or releases it. */
  lockToken: string;
  now: string;
  /**
   * Until when an unfinished claim holds; past it (its process died, perhaps after its work committed) the next
   * claim of the same request settles it as used without an answer: it is never run a second time.
   */
  lockedUntil: string;
  expiresAt: string;
}

export type ClaimOutcome = { claimed: true } | { claimed: false; existing: IdempotencyRecord | null };

export interface IdempotencyStore {
  /**
   * Atomically claims the key for one request: inserts an in-progress record, or takes over one that expired.
   * Otherwise answers the record that holds (null when it vanished in between: the caller may claim again); a
   * lapsed claim of the same request is answered as completed without a replayable answer.
   */
  claim(claim: IdempotencyClaim): Promise<ClaimOutcome>;
  /** Keeps the answer of the claim `lockToken` holds; false when that claim no longer holds. */
  complete(scope: string, keyHash: string, lockToken: string, answer: StoredAnswer, at: string): Promise<boolean>;
  /** Extends the claim `lockToken` holds while its request still runs; false when it no longer holds. */
  renew(scope: string, keyHash: string, lockToken: string, lockedUntil: string): Promise<boolean>;
  /** Forgets the claim (the request failed in a way a retry should run again). */
  release(scope: string, keyHash: string, lockToken: string): Promise<void>;
  /** Deletes up to `limit` records expired at `now`; answers how many. */
  purgeExpired(now: string, limit: number): Promise<number>;
}
export const IDEMPOTENCY_STORE = Symbol.for('IdempotencyStore');
