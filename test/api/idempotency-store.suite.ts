import { randomUUID } from 'node:crypto';

import type { Database } from '../../adapters/postgres/database';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import { PostgresIdempotencyStore } from '../../adapters/postgres/postgres.idempotency-store';
import type { IdempotencyClaim } from '../../core/ports/idempotency-store';

export interface IdempotencyStoreFixture {
  /** An empty database: the suite runs the migrations. */
  db: Database;
  teardown(): Promise<void>;
}

const T0 = Date.parse('2026-03-01T12:00:00.000Z');
const at = (ms: number) => new Date(T0 + ms).toISOString();
const HOUR = 3_600_000;

/** The table `idempotency_keys` (migration 0076) behind IDEMPOTENCY_STORE, on PGlite or a Postgres server. */
export function idempotencyStoreSuite(name: string, makeFixture: () => Promise<IdempotencyStoreFixture>) {
  describe(`idempotency store: ${name}`, () => {
    let fx: IdempotencyStoreFixture;
    let store: PostgresIdempotencyStore;
    beforeAll(async () => {
      fx = await makeFixture();
      await migrate(fx.db.knex, [relationalMigrations]);
      store = new PostgresIdempotencyStore(fx.db.knex);
    });
    afterAll(() => fx?.teardown());

    const claim = (over: Partial<IdempotencyClaim> & { scope: string; keyHash: string }, nowMs = 0): IdempotencyClaim => ({
      method: 'POST',
      path: '/api/bots',
      fingerprint: 'f1',
      lockToken: randomUUID(),
      now: at(nowMs),
      lockedUntil: at(nowMs + 60_000),
      expiresAt: at(nowMs + 24 * HOUR),
      ...over,
    });
    const answer = { status: 201, headers: { 'content-type': 'application/json' }, body: Buffer.from('sealed'), replayable: true };

    it('claims a key once, even when many claim it at once; the completed answer is what the others find', async () => {
      const scope = randomUUID();
      const claims = Array.from({ length: 10 }, () => claim({ scope, keyHash: 'k1' }));
      const outcomes = await Promise.all(claims.map((c) => store.claim(c)));
      expect(outcomes.filter((o) => o.claimed)).toHaveLength(1);
      const holder = claims[outcomes.findIndex((o) => o.claimed)];
      const others = outcomes.filter((o) => !o.claimed);
      expect(others.every((o) => !o.claimed && o.existing?.state === 'in_progress')).toBe(true);

      expect(await store.complete(scope, 'k1', randomUUID(), answer, at(1000))).toBe(false); // not the holder
      expect(await store.complete(scope, 'k1', holder.lockToken, answer, at(1000))).toBe(true);
      const again = await store.claim(claim({ scope, keyHash: 'k1' }, 2000));
      expect(again).toEqual({
        claimed: false,
        existing: expect.objectContaining({
          state: 'completed',
          fingerprint: 'f1',
          path: '/api/bots',
          answer: { ...answer, body: expect.any(Buffer) },
        }),
      });
      expect(!again.claimed && Buffer.from(again.existing!.answer!.body!).toString()).toBe('sealed');
      // Another scope has keys of its own.
      expect((await store.claim(claim({ scope: `anon:${randomUUID()}`, keyHash: 'k1' }))).claimed).toBe(true);
    });

    it('forgets a released claim (a retry claims again) and keeps an answer that cannot be replayed as used', async () => {
      const scope = randomUUID();
      const first = claim({ scope, keyHash: 'k2' });
      expect((await store.claim(first)).claimed).toBe(true);
      await store.release(scope, 'k2', first.lockToken);
      const retry = claim({ scope, keyHash: 'k2' }, 1000);
      expect((await store.claim(retry)).claimed).toBe(true);
      await store.complete(scope, 'k2', retry.lockToken, { status: 200, headers: {}, body: null, replayable: false }, at(2000));
      const found = await store.claim(claim({ scope, keyHash: 'k2' }, 3000));
      expect(!found.claimed && found.existing?.answer).toEqual({ status: 200, headers: {}, body: null, replayable: false });
    });

    it('settles a claim whose holder stopped renewing it as used without an answer, never runs it again; renewal keeps it', async () => {
      const scope = randomUUID();
      const first = claim({ scope, keyHash: 'k3' });
      expect((await store.claim(first)).claimed).toBe(true);
      expect((await store.claim(claim({ scope, keyHash: 'k3' }, 30_000))).claimed).toBe(false); // still held
      expect(await store.renew(scope, 'k3', first.lockToken, at(120_000))).toBe(true);
      expect((await store.claim(claim({ scope, keyHash: 'k3' }, 90_000))).claimed).toBe(false); // renewed
      const other = await store.claim(claim({ scope, keyHash: 'k3', fingerprint: 'other' }, 130_000));
      expect(!other.claimed && other.existing?.state).toBe('in_progress'); // another request settles nothing
      const retry = await store.claim(claim({ scope, keyHash: 'k3' }, 130_000));
      expect(retry.claimed).toBe(false);
      expect(!retry.claimed && retry.existing).toMatchObject({ state: 'completed', answer: { replayable: false } });
      // The first holder lost it: its answer is not kept, its renewal says so.
      expect(await store.renew(scope, 'k3', first.lockToken, at(200_000))).toBe(false);
      expect(await store.complete(scope, 'k3', first.lockToken, answer, at(131_000))).toBe(false);
    });

    it('gives an expired key a new life (any request), and purges expired keys in batches', async () => {
      const scope = randomUUID();
      const first = claim({ scope, keyHash: 'k4' });
      await store.claim(first);
      await store.complete(scope, 'k4', first.lockToken, answer, at(1000));
      expect((await store.claim(claim({ scope, keyHash: 'k4', fingerprint: 'other' }, 23 * HOUR))).claimed).toBe(false);
      expect((await store.claim(claim({ scope, keyHash: 'k4', fingerprint: 'other' }, 24 * HOUR))).claimed).toBe(true);

      const purgeScope = randomUUID();
      for (const k of ['p1', 'p2', 'p3']) await store.claim(claim({ scope: purgeScope, keyHash: k }, -48 * HOUR));
      const count = () => fx.db.knex('idempotency_keys').where({ scope: purgeScope }).count<{ count: number }[]>();
      expect(await store.purgeExpired(at(0), 2)).toBeGreaterThanOrEqual(2);
      await store.purgeExpired(at(0), 1000);
      expect(Number((await count())[0].count)).toBe(0);
      // Not yet expired: kept.
      expect(Number((await fx.db.knex('idempotency_keys').where({ scope, key_hash: 'k4' }).count<{ count: number }[]>())[0].count)).toBe(1);
    });
  });
}
