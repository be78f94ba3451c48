/**
 * Both HeavyWork adapters through the conformance suite; then the worker-threads pool's bounds against real
 * threads: a task past its time or memory bound fails alone (its thread is replaced), and the event loop of the
 * caller keeps turning meanwhile.
 */
import { heavyWorkConformance } from '../../test/conformance/heavy-work.conformance';
import { DEFAULT_EXTRACTION_LIMITS } from '../documents/multi-format.document-loader';
import { InProcessHeavyWork, WorkerThreadsHeavyWork } from './worker-threads.heavy-work';

const settings = { limits: DEFAULT_EXTRACTION_LIMITS };
const BOOT = 120_000;
/** Enough text for the chunker to take about a second on the fastest machine seen (0.99 s), over 3x the time bound below. */
const hugeText = () => 'The quick brown fox jumps over the lazy dog. '.repeat(400_000);

heavyWorkConformance('worker-threads', async () => new WorkerThreadsHeavyWork(settings, { threads: 2, timeoutMs: 60_000, memoryMb: 256 }));
heavyWorkConformance('in-process', async () => new InProcessHeavyWork(settings));

describe('bounds', () => {
  it(
    'stops a task past its time bound, keeps the caller loop turning meanwhile, and serves the next task on a fresh thread',
    async () => {
      // The bound runs from the task's hand-over to a booted thread, so the small tasks around it fit easily.
      const work = new WorkerThreadsHeavyWork(settings, { threads: 1, timeoutMs: 300, memoryMb: 512 });
      try {
        await work.run('text.chunk', { text: 'warm up', options: {} }); // the thread is booted and ready
        let ticks = 0;
        const ticker = setInterval(() => ticks++, 10);
        let settled = false;
        const slow = work.run('text.chunk', { text: hugeText(), options: { size: 200, overlap: 20 } }).finally(() => (settled = true));
        slow.catch(() => undefined);
        // the caller's timers keep firing while the task runs (inline, the chunker would hold them until it ends)
        while (ticks < 5 && !settled) await new Promise((resolve) => setTimeout(resolve, 10));
        expect({ ticks: ticks >= 5, settled }).toEqual({ ticks: true, settled: false });
        await expect(slow).rejects.toMatchObject({ code: 'VALIDATION', details: { limit: 'time' } });
        clearInterval(ticker);
        expect(await work.run('text.chunk', { text: 'after the stop', options: {} })).toHaveLength(1);
      } finally {
        await work.close();
      }
    },
    BOOT,
  );

  it(
    'stops a task past its memory bound; the pool goes on',
    async () => {
      const work = new WorkerThreadsHeavyWork(settings, { threads: 1, timeoutMs: 60_000, memoryMb: 48 });
      try {
        // 2.4M chunk objects with their strings need far more than 48 MB of heap
        const error = await work.run('text.chunk', { text: hugeText(), options: { size: 20, overlap: 0 } }).catch((e) => e);
        expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { limit: 'memory' } });
        expect(await work.run('text.chunk', { text: 'still here', options: {} })).toHaveLength(1);
      } finally {
        await work.close();
      }
    },
    BOOT,
  );

  it('refuses tasks once closed', async () => {
    const work = new WorkerThreadsHeavyWork(settings, { threads: 1, timeoutMs: 1_000, memoryMb: 64 });
    await work.close();
    await expect(work.run('text.chunk', { text: 'x', options: {} })).rejects.toThrow('closed');
  });
});
