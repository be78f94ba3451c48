import { AsyncLocalStorage } from 'node:async_hooks';

import { runJobQueueConformance, sleep, waitFor } from '../../test/conformance/job-queue.conformance';
import { backoffDelay, InProcessJobQueue } from './in-process.job-queue';

const quiet = { warn: () => undefined };

runJobQueueConformance('in-process', async () => new InProcessJobQueue({ logger: quiet }));

describe('InProcessJobQueue specifics', () => {
  let queue: InProcessJobQueue;
  beforeEach(() => {
    queue = new InProcessJobQueue({ logger: quiet });
  });
  afterEach(() => queue.close());

  it('never runs a handler inside enqueue()', async () => {
    let inside = false;
    const seenInside: boolean[] = [];
    await queue.consume('sync-check', async () => void seenInside.push(inside));
    await sleep(5);
    inside = true;
    const pending = queue.enqueue('sync-check', 1);
    inside = false;
    await pending;
    await waitFor(() => seenInside.length === 1);
    expect(seenInside).toEqual([false]);
  });

  // The embedded store keeps its open transaction in async-local storage: a job queued inside a transaction must
  // not run (nor retry) inside it once it committed, or every query of the handler fails.
  it("runs handlers and their retries in the consumer's async context, not the producer's", async () => {
    const transaction = new AsyncLocalStorage<string>();
    const seen: (string | undefined)[] = [];
    await transaction.run('consumer', () =>
      queue.consume(
        'context',
        async (job) => {
          seen.push(transaction.getStore());
          if (job.attempt === 1) throw new Error('retry me');
        },
        { backoffMs: 1 },
      ),
    );
    await sleep(5); // the dispatch that consume() scheduled has run
    await transaction.run('producer', () => queue.enqueue('context', 1));
    await waitFor(() => seen.length === 2);
    expect(seen).toEqual(['consumer', 'consumer']);
  });

  it('ignores a second enqueue of a pending jobId, accepts it again once the job finished', async () => {
    const runs: unknown[] = [];
    expect(await queue.enqueue('dedupe', 'first', { jobId: 'same' })).toBe('same');
    expect(await queue.enqueue('dedupe', 'duplicate', { jobId: 'same' })).toBe('same');
    await queue.consume('dedupe', async (job) => void runs.push(job.payload));
    await waitFor(() => runs.length === 1);
    await sleep(20);
    expect(runs).toEqual(['first']);
    await queue.enqueue('dedupe', 'again', { jobId: 'same' });
    await waitFor(() => runs.length === 2);
    expect(runs).toEqual(['first', 'again']);
  });

  it('dedupes while a job waits for its retry', async () => {
    const runs: string[] = [];
    await queue.consume(
      'dedupe-retry',
      async (job) => {
        runs.push(`${job.payload}:${job.attempt}`);
        if (job.attempt === 1) throw new Error('once');
      },
      { backoffMs: 50 },
    );
    await queue.enqueue('dedupe-retry', 'x', { jobId: 'r1' });
    await waitFor(() => runs.length === 1);
    await queue.enqueue('dedupe-retry', 'y', { jobId: 'r1' });
    await waitFor(() => runs.length === 2);
    await sleep(30);
    expect(runs).toEqual(['x:1', 'x:2']);
  });

  it('gives each delivery a fresh copy of the payload, serialised like a broker would', async () => {
    const payloads: unknown[] = [];
    const original = { list: [1], when: new Date('2024-01-02T03:04:05.000Z'), gone: undefined };
    await queue.consume(
      'copies',
      async (job) => {
        payloads.push(JSON.parse(JSON.stringify(job.payload)));
        (job.payload as { list: number[] }).list.push(99);
        if (job.attempt === 1) throw new Error('retry me');
      },
      { backoffMs: 1 },
    );
    await queue.enqueue('copies', original);
    original.list.push(2);
    await waitFor(() => payloads.length === 2);
    expect(payloads).toEqual([
      { list: [1], when: '2024-01-02T03:04:05.000Z' },
      { list: [1], when: '2024-01-02T03:04:05.000Z' },
    ]);
  });

  it('rejects payloads that cannot be serialised', async () => {
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    await expect(queue.enqueue('bad', circular)).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(queue.enqueue('bad', 10n)).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('rejects queue names that collide with dead-letter or delay names', async () => {
    await expect(queue.enqueue('work.dead', 1)).rejects.toMatchObject({ code: 'VALIDATION' });
    await expect(queue.enqueue('work.delay.5', 1)).rejects.toMatchObject({ code: 'VALIDATION' });
  });

  it('backs off exponentially with a cap', () => {
    expect([1, 2, 3, 4].map((a) => backoffDelay(1000, a))).toEqual([1000, 2000, 4000, 8000]);
    expect(backoffDelay(1000, 40)).toBe(3_600_000);
  });

  it('close() drops delayed jobs and lets the process exit (no timer left)', async () => {
    await queue.enqueue('later', 1, { delayMs: 60_000 });
    await queue.close();
    // jest would report an open handle / hang if the timer were still armed; nothing more to assert.
    expect(await queue.deadLetters('later')).toEqual([]);
  });
});
