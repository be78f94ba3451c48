import { rateLimitStoreConformance } from '../../test/conformance/rate-limit-store.conformance';
import { InProcessRateLimitStore } from './in-process.rate-limit-store';

class FakeClock {
  constructor(public ms = Date.UTC(2025, 0, 1)) {}
  now = () => new Date(this.ms);
}

rateLimitStoreConformance('in-process', async () => {
  const clock = new FakeClock();
  return {
    store: new InProcessRateLimitStore({ clock }),
    advance: async (ms) => {
      clock.ms += ms;
    },
  };
});

describe('InProcessRateLimitStore memory bounds', () => {
  it('sweeps expired windows', async () => {
    const clock = new FakeClock();
    const store = new InProcessRateLimitStore({ clock, sweepIntervalMs: 1000 });
    for (let i = 0; i < 50; i++) await store.hit(`ip-${i}`, 5, 1);
    expect(store.size).toBe(50);
    clock.ms += 2000;
    await store.hit('fresh', 5, 1);
    expect(store.size).toBe(1);
  });

  it('never holds more than maxKeys windows', async () => {
    const store = new InProcessRateLimitStore({ clock: new FakeClock(), maxKeys: 100 });
    for (let i = 0; i < 1000; i++) await store.hit(`ip-${i}`, 5, 60);
    expect(store.size).toBeLessThanOrEqual(100);
    // the newest windows survive eviction
    expect((await store.hit('ip-999', 1, 60)).allowed).toBe(false);
  });

  it('reports the remaining seconds of the window in Retry-After', async () => {
    const clock = new FakeClock();
    const store = new InProcessRateLimitStore({ clock });
    await store.hit('k', 1, 60);
    clock.ms += 30_500;
    expect((await store.hit('k', 1, 60)).retryAfterSeconds).toBe(30);
  });
});
