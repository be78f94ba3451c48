import type { TickLeadership } from '../../core/ports/tick-leadership';

export interface TickLeadershipFixture {
  /** Two holders that must exclude each other: two workers (two pools, two processes' worth) on one store. */
  first: TickLeadership;
  second: TickLeadership;
  teardown?(): Promise<void>;
}

/** A promise and the function that resolves it. */
function gate() {
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  return { open, opened };
}

/** Shared behaviour of every TickLeadership adapter: one holder of a name at a time, never waiting for it. */
export function tickLeadershipConformance(name: string, makeFixture: () => Promise<TickLeadershipFixture>): void {
  describe(`TickLeadership conformance: ${name}`, () => {
    let fx: TickLeadershipFixture;
    let n = 0;
    const tick = (label: string) => `test.${label}.${process.pid}.${Date.now()}.${n++}`;

    beforeEach(async () => {
      fx = await makeFixture();
    });
    afterEach(async () => {
      await fx.teardown?.();
    });

    it('runs the work and hands back its value', async () => {
      expect(await fx.first.runExclusive(tick('value'), async () => 42)).toEqual({ ran: true, value: 42 });
    });

    it('skips, at once, a name another holder (or the same one) is running, and runs it again once it finished', async () => {
      const name = tick('busy');
      const release = gate();
      const entered = gate();
      const holding = fx.first.runExclusive(name, async () => {
        entered.open();
        await release.opened;
        return 'first';
      });
      await entered.opened;
      let secondRan = false;
      expect(await fx.second.runExclusive(name, async () => (secondRan = true))).toEqual({ ran: false });
      expect(await fx.first.runExclusive(name, async () => (secondRan = true))).toEqual({ ran: false });
      expect(secondRan).toBe(false);
      release.open();
      expect(await holding).toEqual({ ran: true, value: 'first' });
      expect(await fx.second.runExclusive(name, async () => 'second')).toEqual({ ran: true, value: 'second' });
    });

    it('lets different names run side by side', async () => {
      const release = gate();
      const entered = gate();
      const holding = fx.first.runExclusive(tick('a'), async () => {
        entered.open();
        await release.opened;
      });
      await entered.opened;
      expect(await fx.second.runExclusive(tick('b'), async () => 'b')).toEqual({ ran: true, value: 'b' });
      release.open();
      await holding;
    });

    it('of two holders ticking at the same moment, runs the work on exactly one', async () => {
      const name = tick('race');
      let runs = 0;
      const work = async () => {
        runs++;
        await new Promise((resolve) => setTimeout(resolve, 300));
      };
      const outcomes = await Promise.all([fx.first.runExclusive(name, work), fx.second.runExclusive(name, work)]);
      expect(outcomes.map((o) => o.ran).sort()).toEqual([false, true]);
      expect(runs).toBe(1);
    });

    it('rethrows the work’s failure and frees the name', async () => {
      const name = tick('fails');
      await expect(
        fx.first.runExclusive(name, async () => {
          throw new Error('tick failed');
        }),
      ).rejects.toThrow('tick failed');
      expect(await fx.second.runExclusive(name, async () => 'after')).toEqual({ ran: true, value: 'after' });
    });
  });
}
