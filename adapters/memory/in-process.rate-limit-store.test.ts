import { rateLimitStoreConformance } from '../../test/conformance/rate-limit-store.conformance';
import { InProcessRateLimitStore } from './in-process.rate-limit-store';

class FakeClock {
  constructor(public ms = Date.UTC(2025, 0, 1)) {}
  now = () => new Date(this.ms);
}

rateLimitStoreConformance(
  'in-process',
  async () => {
    const clock = new FakeClock();
    return {
      store: new InProcessRateLimitStore({ clock }),
      advance: async (ms) => {
        clock.ms += ms;
      },
    };
  },
  { answersAtOnce: true },
);

describe('InProcessRateLimitStore sliding window', () => {
  it('does not allow the fixed window’s double burst across a window boundary', async () => {
    const clock = new FakeClock();
    const store = new InProcessRateLimitStore({ clock });
    clock.ms += 59_000; // the last second of a window
    let allowed = 0;
    for (let i = 0; i < 10; i++) if ((await store.hit('k', 10, 60)).allowed) allowed++;
    clock.ms += 2000; // the first second of the next one
    for (let i = 0; i < 10; i++) if ((await store.hit('k', 10, 60)).allowed) allowed++;
    // a fixed window would allow 20 within these two seconds
    expect(allowed).toBe(10);
  });

  it('tells in Retry-After when the next hit fits, and that hit is then allowed', async () => {
    const clock = new FakeClock();
    const store = new InProcessRateLimitStore({ clock });
    for (let i = 0; i < 4; i++) await store.hit('k', 4, 60);
    clock.ms += 30_000;
    const refused = await store.hit('k', 4, 60);
    expect(refused.allowed).toBe(false);
    // 4 hits in window 0: in window 1 a fifth fits once 4 × (1 − f) + 1 ≤ 4, i.e. f ≥ 1/4 → 60 + 15 − 30 = 45 s
    expect(refused.retryAfterSeconds).toBe(45);
    clock.ms += 44_000;
    expect((await store.hit('k', 4, 60)).allowed).toBe(false);
    clock.ms += 1000;
    expect((await store.hit('k', 4, 60)).allowed).toBe(true);
  });

  it('drops the keys whose two windows have passed once a minute, and keeps the others', async () => {
    jest.useFakeTimers({ doNotFake: ['Date', 'nextTick', 'queueMicrotask'] });
    try {
      const clock = new FakeClock();
      const store = new InProcessRateLimitStore({ clock });
      await store.hit('old', 5, 10);
      await store.hit('recent', 5, 60);
      clock.ms += 30_000; // 'old' is two 10-second windows behind; 'recent' is still in its window
      await store.hit('fresh', 5, 10);
      expect(store.keyCount).toBe(3);
      jest.advanceTimersByTime(60_000);
      expect(store.keyCount).toBe(2);
      expect((await store.peek('recent', 5, 60)).remaining).toBe(4);
      await store.close();
    } finally {
      jest.useRealTimers();
    }
  });
});
