import { randomBytes } from 'node:crypto';

import type { Job, JobQueue } from '../../core/ports/job-queue';

/**
 * Shared behaviour of every JobQueue adapter. Each adapter's test file calls this with a factory.
 * Timings are small (backoff 20 ms) and nothing asserts how long anything took; waits only poll
 * until a condition holds or a generous deadline passes.
 */
export function runJobQueueConformance(name: string, factory: () => Promise<JobQueue>): void {
  describe(`JobQueue conformance: ${name}`, () => {
    const created: JobQueue[] = [];
    const make = async (): Promise<JobQueue> => {
      const queue = await factory();
      created.push(queue);
      return queue;
    };
    const queueName = (label: string) => `conf-${label}-${randomBytes(4).toString('hex')}`;

    afterEach(async () => {
      await Promise.allSettled(created.splice(0).map((q) => q.close()));
    });

    it('describes itself with an id', async () => {
      const q = await make();
      expect(typeof q.id).toBe('string');
      expect(q.id.length).toBeGreaterThan(0);
    });

    it('delivers every job at least once, with its payload, in any order', async () => {
      const q = await make();
      const name = queueName('deliver');
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await q.enqueue(name, { n: i, nested: { tag: 'x' } }));
      expect(new Set(ids).size).toBe(5);

      const seen = new Map<string, Job>();
      await q.consume(name, async (job) => {
        seen.set(job.id, job);
      });
      await waitFor(() => seen.size === 5);
      expect([...seen.keys()].sort()).toEqual([...ids].sort());
      const payloads = [...seen.values()].map((j) => (j.payload as { n: number }).n).sort();
      expect(payloads).toEqual([0, 1, 2, 3, 4]);
      for (const job of seen.values()) {
        expect(job.queue).toBe(name);
        expect(job.attempt).toBe(1);
        expect(job.payload).toMatchObject({ nested: { tag: 'x' } });
      }
    });

    it('uses jobId as the job id', async () => {
      const q = await make();
      const name = queueName('jobid');
      const id = await q.enqueue(name, { a: 1 }, { jobId: 'fixed-id-1' });
      expect(id).toBe('fixed-id-1');
      const seen: string[] = [];
      await q.consume(name, async (job) => {
        seen.push(job.id);
      });
      await waitFor(() => seen.length >= 1);
      expect(seen[0]).toBe('fixed-id-1');
    });

    it('keeps jobs enqueued before any consumer exists until one subscribes', async () => {
      const q = await make();
      const name = queueName('early');
      const id = await q.enqueue(name, 'early');
      await sleep(50);
      const seen: string[] = [];
      await q.consume(name, async (job) => {
        seen.push(job.id);
      });
      await waitFor(() => seen.length === 1);
      expect(seen).toEqual([id]);
    });

    it('keeps queues apart', async () => {
      const q = await make();
      const a = queueName('iso-a');
      const b = queueName('iso-b');
      const seenA: unknown[] = [];
      const seenB: unknown[] = [];
      await q.consume(a, async (job) => void seenA.push(job.payload));
      await q.consume(b, async (job) => void seenB.push(job.payload));
      await q.enqueue(a, 'for-a');
      await q.enqueue(b, 'for-b');
      await waitFor(() => seenA.length === 1 && seenB.length === 1);
      expect(seenA).toEqual(['for-a']);
      expect(seenB).toEqual(['for-b']);
    });

    it('retries a failing job with a growing attempt number, then succeeds', async () => {
      const q = await make();
      const name = queueName('retry');
      const attempts: number[] = [];
      let done = false;
      await q.consume(
        name,
        async (job) => {
          attempts.push(job.attempt);
          if (job.attempt < 3) throw new Error(`fail ${job.attempt}`);
          done = true;
        },
        { maxAttempts: 5, backoffMs: 20 },
      );
      const id = await q.enqueue(name, { retry: true });
      await waitFor(() => done);
      expect(attempts).toEqual([1, 2, 3]);
      await sleep(100);
      expect(attempts).toEqual([1, 2, 3]);
      expect(await q.deadLetters(name)).toEqual([]);
      expect(id).toBeTruthy();
    });

    it('dead-letters a job after maxAttempts, and deadLetters() does not consume them', async () => {
      const q = await make();
      const name = queueName('dead');
      const attempts: number[] = [];
      await q.consume(
        name,
        async (job) => {
          attempts.push(job.attempt);
          throw new Error('always fails');
        },
        { maxAttempts: 3, backoffMs: 20 },
      );
      const first = await q.enqueue(name, { which: 'first' }, { jobId: 'dead-1' });
      await waitFor(async () => (await q.deadLetters(name)).length === 1);
      const second = await q.enqueue(name, { which: 'second' }, { jobId: 'dead-2' });
      await waitFor(async () => (await q.deadLetters(name)).length === 2);

      const dead = await q.deadLetters(name);
      expect(dead.map((j) => j.id)).toEqual([first, second]);
      expect(dead[0]).toMatchObject({ id: 'dead-1', queue: name, payload: { which: 'first' }, attempt: 3 });
      expect(attempts.filter((a) => a > 3)).toEqual([]);
      expect(attempts.length).toBe(6);
      // Peeking twice still shows both: dead letters are kept for operators.
      expect((await q.deadLetters(name)).map((j) => j.id)).toEqual([first, second]);
    });

    it('delays a job by delayMs', async () => {
      const q = await make();
      const name = queueName('delay');
      const order: string[] = [];
      await q.consume(name, async (job) => void order.push(job.payload as string), { concurrency: 2 });
      await q.enqueue(name, 'delayed', { delayMs: 300 });
      await q.enqueue(name, 'immediate');
      await waitFor(() => order.length === 2);
      expect(order).toEqual(['immediate', 'delayed']);
    });

    it('never runs more handlers at once than the consumer concurrency, and uses it', async () => {
      const q = await make();
      const name = queueName('concurrency');
      for (let i = 0; i < 6; i++) await q.enqueue(name, i);
      let running = 0;
      let maxRunning = 0;
      let completed = 0;
      const gate = deferred();
      await q.consume(
        name,
        async () => {
          running++;
          maxRunning = Math.max(maxRunning, running);
          await gate.promise;
          running--;
          completed++;
        },
        { concurrency: 2 },
      );
      await waitFor(() => running === 2);
      await sleep(100); // give a third handler the chance to start if the limit were broken
      expect(maxRunning).toBe(2);
      gate.resolve();
      await waitFor(() => completed === 6);
      expect(maxRunning).toBe(2);
    });

    it('runs one job at a time by default', async () => {
      const q = await make();
      const name = queueName('default-concurrency');
      for (let i = 0; i < 3; i++) await q.enqueue(name, i);
      let running = 0;
      let maxRunning = 0;
      let completed = 0;
      await q.consume(name, async () => {
        running++;
        maxRunning = Math.max(maxRunning, running);
        await sleep(20);
        running--;
        completed++;
      });
      await waitFor(() => completed === 3);
      expect(maxRunning).toBe(1);
    });

    it('shares a queue between competing consumers, each job handled once when nothing fails', async () => {
      const q = await make();
      const name = queueName('competing');
      const deliveries: string[] = [];
      const handler = async (job: Job) => {
        deliveries.push(job.id);
        await sleep(5);
      };
      await q.consume(name, handler);
      await q.consume(name, handler);
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await q.enqueue(name, i));
      await waitFor(() => deliveries.length >= 10);
      await sleep(50);
      expect([...deliveries].sort()).toEqual([...ids].sort());
    });

    it('stops delivering to a closed subscription; another consumer takes over', async () => {
      const q = await make();
      const name = queueName('unsubscribe');
      const first: unknown[] = [];
      const second: unknown[] = [];
      const sub = await q.consume(name, async (job) => void first.push(job.payload));
      await q.enqueue(name, 'one');
      await waitFor(() => first.length === 1);
      await sub.close();
      await q.enqueue(name, 'two');
      await sleep(50);
      await q.consume(name, async (job) => void second.push(job.payload));
      await waitFor(() => second.length === 1);
      expect(first).toEqual(['one']);
      expect(second).toEqual(['two']);
    });

    it('close() waits for running handlers, and the finished job is not delivered again', async () => {
      const q = await make();
      const name = queueName('close');
      let started = false;
      let finished = false;
      await q.consume(name, async () => {
        started = true;
        await sleep(100);
        finished = true;
      });
      const id = await q.enqueue(name, 'slow');
      await waitFor(() => started);
      await q.close();
      expect(finished).toBe(true);
      await expect(q.enqueue(name, 'late')).rejects.toMatchObject({ code: 'INVALID_STATE' });

      const again = await make();
      const redelivered: string[] = [];
      await again.consume(name, async (job) => void redelivered.push(job.id));
      await sleep(100);
      expect(redelivered).not.toContain(id);
    });

    it('carries metadata with a job across retries and into the dead letters; jobs without it have none', async () => {
      const q = await make();
      const name = queueName('meta');
      const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
      const seen: Job[] = [];
      await q.consume(
        name,
        async (job) => {
          seen.push(job);
          throw new Error('always fails');
        },
        { maxAttempts: 2, backoffMs: 20 },
      );
      await q.enqueue(name, { n: 1 }, { jobId: 'meta-1', metadata: { requestId: 'req-meta-1', traceparent } });
      await q.enqueue(name, { n: 2 }, { jobId: 'meta-2' });
      await waitFor(async () => (await q.deadLetters(name)).length === 2);
      const first = seen.filter((j) => j.id === 'meta-1');
      expect(first.map((j) => j.attempt)).toEqual([1, 2]);
      for (const job of first) expect(job.metadata).toEqual({ requestId: 'req-meta-1', traceparent });
      for (const job of seen.filter((j) => j.id === 'meta-2')) expect(job.metadata).toBeUndefined();
      const dead = await q.deadLetters(name);
      expect(dead.find((j) => j.id === 'meta-1')?.metadata).toEqual({ requestId: 'req-meta-1', traceparent });
    });

    it('reports how many jobs wait in a queue', async () => {
      const q = await make();
      if (!q.depths) return; // optional in the port
      const name = queueName('depth');
      for (let i = 0; i < 3; i++) await q.enqueue(name, i);
      await waitFor(async () => (await q.depths!())[name] === 3);
      const seen: number[] = [];
      await q.consume(name, async (job) => void seen.push(job.payload as number));
      await waitFor(() => seen.length === 3);
      await waitFor(async () => (await q.depths!())[name] === 0);
    });

    it('rejects invalid options', async () => {
      const q = await make();
      const name = queueName('invalid');
      await expect(q.enqueue(name, 1, { delayMs: -1 })).rejects.toMatchObject({ code: 'VALIDATION' });
      await expect(q.consume(name, async () => undefined, { concurrency: 0 })).rejects.toMatchObject({
        code: 'VALIDATION',
      });
      await expect(q.enqueue('', 1)).rejects.toMatchObject({ code: 'VALIDATION' });
    });
  });
}

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/** Polls until the condition holds; fails after a generous deadline (not a timing assertion). */
export async function waitFor(condition: () => boolean | Promise<boolean>, timeoutMs = 15_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`condition not met within ${timeoutMs} ms`);
    await sleep(10);
  }
}

export function deferred(): { promise: Promise<void>; resolve: () => void } {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}
