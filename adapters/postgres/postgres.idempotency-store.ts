import type { Knex } from 'knex';

import type { ClaimOutcome, IdempotencyClaim, IdempotencyRecord, IdempotencyStore, StoredAnswer } from '../../core/ports/idempotency-store';
import { iso } from './repositories/rows';

const TABLE = 'idempotency_keys';

const toRecord = (r: Record<string, unknown>): IdempotencyRecord => ({
  scope: r.scope as string,
  keyHash: r.key_hash as string,
  method: r.method as string,
  path: r.path as string,
  fingerprint: r.fingerprint as string,
  state: r.state as IdempotencyRecord['state'],
  answer:
    r.state === 'completed'
      ? {
          status: Number(r.response_status),
          headers: (r.response_headers as Record<string, string> | null) ?? {},
          body: (r.response_body as Buffer | null) ?? null,
          replayable: Boolean(r.replayable),
        }
      : null,
  createdAt: iso(r.created_at),
  expiresAt: iso(r.expires_at),
});

/**
 * IDEMPOTENCY_STORE on the relational database (table `idempotency_keys`, migration 0076), on the pool and
 * never inside a use case's transaction: a claim must hold whatever the request's own transactions do.
 */
export class PostgresIdempotencyStore implements IdempotencyStore {
  constructor(private readonly db: Knex) {}

  async claim(c: IdempotencyClaim): Promise<ClaimOutcome> {
    // One statement: a fresh key is inserted, a record past its 24 hours is taken over, anything else stays.
    const taken = await this.db.raw(
      `insert into ${TABLE} (scope, key_hash, method, path, fingerprint, state, lock_token, locked_until,
                             response_status, response_headers, response_body, replayable, created_at, completed_at, expires_at)
       values (?, ?, ?, ?, ?, 'in_progress', ?, ?, null, null, null, true, ?, null, ?)
       on conflict (scope, key_hash) do update set
         method = excluded.method, path = excluded.path, fingerprint = excluded.fingerprint, state = 'in_progress',
         lock_token = excluded.lock_token, locked_until = excluded.locked_until, response_status = null,
         response_headers = null, response_body = null, replayable = true, created_at = excluded.created_at,
         completed_at = null, expires_at = excluded.expires_at
       where ${TABLE}.expires_at <= excluded.created_at
       returning scope`,
      [c.scope, c.keyHash, c.method, c.path, c.fingerprint, c.lockToken, c.lockedUntil, c.now, c.expiresAt],
    );
    if ((taken as { rows: unknown[] }).rows.length > 0) return { claimed: true };
    // An unfinished claim whose holder stopped renewing it (its process died) may have committed its work before
    // it could keep the answer: it is settled as used without an answer, never run a second time (an api killed
    // mid-chat had saved and billed the turn; the retry that took the claim over saved and billed it again).
    await this.db(TABLE)
      .where({ scope: c.scope, key_hash: c.keyHash, state: 'in_progress', fingerprint: c.fingerprint })
      .andWhere('locked_until', '<=', c.now)
      .update({ state: 'completed', lock_token: null, locked_until: null, response_status: 0, replayable: false, completed_at: c.now });
    const row = await this.db(TABLE).where({ scope: c.scope, key_hash: c.keyHash }).first();
    return { claimed: false, existing: row ? toRecord(row as Record<string, unknown>) : null };
  }

  async complete(scope: string, keyHash: string, lockToken: string, answer: StoredAnswer, at: string): Promise<boolean> {
    const updated = await this.db(TABLE)
      .where({ scope, key_hash: keyHash, lock_token: lockToken, state: 'in_progress' })
      .update({
        state: 'completed',
        lock_token: null,
        locked_until: null,
        response_status: answer.status,
        response_headers: JSON.stringify(answer.headers),
        response_body: answer.body ? Buffer.from(answer.body.buffer, answer.body.byteOffset, answer.body.byteLength) : null,
        replayable: answer.replayable,
        completed_at: at,
      });
    return Number(updated) > 0;
  }

  async renew(scope: string, keyHash: string, lockToken: string, lockedUntil: string): Promise<boolean> {
    const updated = await this.db(TABLE)
      .where({ scope, key_hash: keyHash, lock_token: lockToken, state: 'in_progress' })
      .update({ locked_until: lockedUntil });
    return Number(updated) > 0;
  }

  async release(scope: string, keyHash: string, lockToken: string): Promise<void> {
    await this.db(TABLE).where({ scope, key_hash: keyHash, lock_token: lockToken, state: 'in_progress' }).delete();
  }

  async purgeExpired(now: string, limit: number): Promise<number> {
    const deleted = await this.db.raw(
      `delete from ${TABLE} where (scope, key_hash) in
         (select scope, key_hash from ${TABLE} where expires_at <= ? order by expires_at limit ?)`,
      [now, limit],
    );
    return (deleted as { rowCount?: number }).rowCount ?? 0;
  }
}
