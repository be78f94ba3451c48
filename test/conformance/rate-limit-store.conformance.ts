import type { RateLimitStore } from '../../core/ports/rate-limit-store';

export interface RateLimitStoreFixture {
  store: RateLimitStore;
  /** Moves time forward by at least `ms` as the store sees it (a fake clock, or a real wait). */
  advance(ms: number): Promise<void>;
  /** Called after each test. */
  teardown?(): Promise<void>;
}

/**
 * Shared behaviour of every RateLimitStore adapter (sliding window per key). `answersAtOnce`: the store counts
 * in this process and offers `hitNow`, which must share `hit`'s counts.
 */
export function rateLimitStoreConformance(
  name: string,
  makeFixture: () => Promise<RateLimitStoreFixture>,
  { answersAtOnce = false }: { answersAtOnce?: boolean } = {},
): void {
  describe(`RateLimitStore conformance: ${name}`, () => {
    let fx: RateLimitStoreFixture;
    let n = 0;
    const key = (label: string) => `${label}-${process.pid}-${Date.now()}-${n++}`;

    beforeEach(async () => {
      fx = await makeFixture();
    });
    afterEach(async () => {
      await fx.teardown?.();
      await fx.store.close();
    });

    it('describes itself with an id', () => {
      expect(typeof fx.store.id).toBe('string');
      expect(fx.store.id.length).toBeGreaterThan(0);
    });

    it('counts a hit of `cost` as that many hits (a budget of measured work)', async () => {
      const k = key('cost');
      expect(await fx.store.hit(k, 10_000, 60, 6_000)).toMatchObject({ allowed: true, remaining: 4_000 });
      expect((await fx.store.peek(k, 10_000, 60)).remaining).toBe(4_000);
      expect(await fx.store.hit(k, 10_000, 60, 5_000)).toMatchObject({ allowed: false }); // refused: not counted
      expect(await fx.store.hit(k, 10_000, 60, 4_000)).toMatchObject({ allowed: true, remaining: 0 });
      expect((await fx.store.peek(k, 10_000, 60)).allowed).toBe(false);
    });

    it('allows up to the limit, counting remaining down, then denies with Retry-After', async () => {
      const k = key('count');
      const decisions = [];
      for (let i = 0; i < 4; i++) decisions.push(await fx.store.hit(k, 3, 60));
      expect(decisions.map((d) => d.allowed)).toEqual([true, true, true, false]);
      expect(decisions.map((d) => d.remaining)).toEqual([2, 1, 0, 0]);
      expect(decisions.every((d) => d.limit === 3)).toBe(true);
      expect(decisions.slice(0, 3).every((d) => d.retryAfterSeconds === 0)).toBe(true);
      const denied = decisions[3]!;
      expect(Number.isInteger(denied.retryAfterSeconds)).toBe(true);
      expect(denied.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(denied.retryAfterSeconds).toBeLessThanOrEqual(120); // a sliding window forgets within two windows
    });

    (answersAtOnce ? it : it.skip)('answers hitNow from the same counts as hit', async () => {
      expect(fx.store.hitNow).toBeInstanceOf(Function);
      const hitNow = fx.store.hitNow!.bind(fx.store);
      const k = key('now');
      expect((await fx.store.hit(k, 3, 60)).remaining).toBe(2);
      expect(hitNow(k, 3, 60)).toMatchObject({ allowed: true, remaining: 1 });
      expect(hitNow(k, 3, 60)).toMatchObject({ allowed: true, remaining: 0 });
      expect((await fx.store.hit(k, 3, 60)).allowed).toBe(false);
      const refused = hitNow(k, 3, 60);
      expect(refused.allowed).toBe(false);
      expect(refused.retryAfterSeconds).toBeGreaterThanOrEqual(1);
    });

    it('keeps keys independent', async () => {
      const a = key('a');
      const b = key('b');
      expect((await fx.store.hit(a, 1, 60)).allowed).toBe(true);
      expect((await fx.store.hit(a, 1, 60)).allowed).toBe(false);
      expect((await fx.store.hit(b, 1, 60)).allowed).toBe(true);
    });

    it('keeps windows of different lengths on the same key independent', async () => {
      const k = key('windows');
      expect((await fx.store.hit(k, 1, 60)).allowed).toBe(true);
      expect((await fx.store.hit(k, 1, 30)).allowed).toBe(true);
      expect((await fx.store.hit(k, 1, 60)).allowed).toBe(false);
    });

    it('counts concurrent hits exactly', async () => {
      const k = key('concurrent');
      const decisions = await Promise.all(Array.from({ length: 20 }, () => fx.store.hit(k, 10, 60)));
      expect(decisions.filter((d) => d.allowed)).toHaveLength(10);
      expect(decisions.map((d) => d.remaining).sort((x, y) => x - y)[0]).toBe(0);
    });

    it('forgets hits once their window has slid past (within two window lengths)', async () => {
      const k = key('expiry');
      expect((await fx.store.hit(k, 1, 1)).allowed).toBe(true);
      expect((await fx.store.hit(k, 1, 1)).allowed).toBe(false);
      await fx.advance(2100);
      const after = await fx.store.hit(k, 1, 1);
      expect(after.allowed).toBe(true);
      expect(after.remaining).toBe(0);
    });

    it('does not count refused hits, so hammering does not extend the wait', async () => {
      const k = key('refused');
      expect((await fx.store.hit(k, 2, 60)).allowed).toBe(true);
      expect((await fx.store.hit(k, 2, 60)).allowed).toBe(true);
      for (let i = 0; i < 5; i++) expect((await fx.store.hit(k, 2, 60)).allowed).toBe(false);
      const p = await fx.store.peek(k, 2, 60);
      expect(p.allowed).toBe(false);
      expect(p.retryAfterSeconds).toBeLessThanOrEqual(120);
    });

    it('peeks without counting, and reset forgets the key', async () => {
      const k = key('peek');
      expect(await fx.store.peek(k, 2, 60)).toMatchObject({ allowed: true, remaining: 2 });
      expect(await fx.store.peek(k, 2, 60)).toMatchObject({ allowed: true, remaining: 2 });
      await fx.store.hit(k, 2, 60);
      await fx.store.hit(k, 2, 60);
      const locked = await fx.store.peek(k, 2, 60);
      expect(locked.allowed).toBe(false);
      expect(locked.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      await fx.store.reset(k, 60);
      expect((await fx.store.hit(k, 2, 60)).allowed).toBe(true);
    });
  });
}
