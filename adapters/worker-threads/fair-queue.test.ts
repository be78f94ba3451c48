/**
 * Fair scheduling of heavy work between tenants: the queue's order and share rule, then the pool itself on real
 * threads (tenant B's task starts while tenant A's backlog waits; thread time is counted per tenant and told to
 * the caller). Assertions are on order and accounting, not on wall-clock thresholds.
 */
import { DEFAULT_EXTRACTION_LIMITS } from '../documents/multi-format.document-loader';
import { FairQueue, type FairTask } from './fair-queue';
import { WorkerThreadsHeavyWork } from './worker-threads.heavy-work';

type T = FairTask & { name: string };
const task = (tenant: string, name: string, party = ''): T => ({ tenant, party, name });

describe('FairQueue', () => {
  let now = 0;
  const queue = (share = 1, lingerMs = 1000) => new FairQueue<T>({ share, lingerMs, now: () => now });

  it("serves tenants in turn: B's task is next after one of A's, whatever A's backlog", () => {
    const q = queue(2);
    for (let i = 1; i <= 5; i++) q.push(task('A', `a${i}`));
    q.push(task('B', 'b1'));
    const order = [q.take(), q.take(), q.take()].map((t) => t?.name);
    expect(order).toEqual(['a1', 'b1', 'a2']);
  });

  it('holds a tenant to its share while another is active, and lets it use every thread alone', () => {
    const q = queue(1);
    for (let i = 1; i <= 3; i++) q.push(task('A', `a${i}`));
    // alone, A takes both threads of a 2-thread pool
    expect([q.take()?.name, q.take()?.name]).toEqual(['a1', 'a2']);
    q.finished(task('A', 'a1'), 50);
    q.push(task('B', 'b1'));
    expect(q.take()?.name).toBe('b1'); // A holds 1 (its share): B goes first
    q.finished(task('A', 'a2'), 70);
    q.finished(task('B', 'b1'), 5);
    now += 10; // B has just finished: its next step is likely on its way, so A keeps to its share
    expect(q.take()?.name).toBe('a3');
    q.push(task('A', 'a4'));
    expect(q.take()).toBeUndefined(); // A holds its share while B lingers
    expect(q.wakeInMs()).toBe(990);
    now += 1000;
    expect(q.take()?.name).toBe('a4'); // B gone quiet: A may use the idle thread
    expect(q.usage().find((u) => u.tenant === 'A')).toMatchObject({ tasks: 4, threadMs: 120, running: 2, queued: 0 });
  });

  it('takes parties of one tenant in turn (one visitor cannot queue ahead of the others)', () => {
    const q = queue(4);
    for (let i = 1; i <= 3; i++) q.push(task('A', `v1-${i}`, 'visitor:1'));
    q.push(task('A', 'own', ''));
    q.push(task('A', 'v2-1', 'visitor:2'));
    expect([q.take(), q.take(), q.take(), q.take()].map((t) => t?.name)).toEqual(['v1-1', 'own', 'v2-1', 'v1-2']);
  });
});

describe('the pool between tenants (real threads)', () => {
  /** A chunking task that keeps a thread busy for a while (no threshold depends on how long). */
  const busy = () => ({ text: 'The quick brown fox jumps over the lazy dog. '.repeat(8_000), options: { size: 50, overlap: 0 } });

  it("starts tenant B's small task before tenant A's backlog drains, and counts each tenant's thread time", async () => {
    const work = new WorkerThreadsHeavyWork({ limits: DEFAULT_EXTRACTION_LIMITS }, { threads: 2, timeoutMs: 60_000, memoryMb: 256 });
    try {
      await Promise.all([work.run('text.chunk', { text: 'warm', options: {} }), work.run('text.chunk', { text: 'up', options: {} })]);
      const ended: string[] = [];
      const charged: Record<string, number> = { A: 0, B: 0 };
      const backlog = Array.from({ length: 8 }, (_, i) =>
        work.run('text.chunk', busy(), { tenant: 'org:A', charge: (ms) => (charged.A += ms) }).then(() => ended.push(`a${i}`)),
      );
      const b = work.run('text.chunk', { text: 'small', options: {} }, { tenant: 'org:B', charge: (ms) => (charged.B += ms) });
      await b;
      ended.push('b');
      const atB = work.usage().find((u) => u.tenant === 'org:A')!;
      await Promise.all(backlog);
      // B was served after at most one round of A's running tasks (2 threads), not behind all 8
      expect(ended.indexOf('b')).toBeLessThanOrEqual(2);
      expect(atB.queued).toBeGreaterThanOrEqual(4);
      const usage = Object.fromEntries(work.usage().map((u) => [u.tenant, u]));
      expect(usage['org:A']).toMatchObject({ tasks: 8, running: 0, queued: 0 });
      expect(usage['org:B']).toMatchObject({ tasks: 1, running: 0, queued: 0 });
      // what the callers were told is what the pool counted
      expect(charged.A).toBeCloseTo(usage['org:A'].threadMs, 6);
      expect(charged.B).toBeCloseTo(usage['org:B'].threadMs, 6);
      expect(charged.A).toBeGreaterThan(charged.B);
    } finally {
      await work.close();
    }
  }, 120_000);
});
