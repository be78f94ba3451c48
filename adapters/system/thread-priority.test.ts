/**
 * The background threads run below the request loop's priority (Linux): the embedded database thread and the
 * heavy-work threads get the nice values they are given, and the calling thread keeps its own.
 */
import { readdirSync, readFileSync } from 'node:fs';

import { DEFAULT_EXTRACTION_LIMITS } from '../documents/multi-format.document-loader';
import { PgliteThread } from '../postgres/embedded/pglite-thread';
import { WorkerThreadsHeavyWork } from '../worker-threads/worker-threads.heavy-work';
import { kernelThreadId, threadNice } from './thread-priority';

const linux = process.platform === 'linux';
const onLinux = linux ? it : it.skip;

/** Nice values of this process's threads (field 19 of /proc/self/task/<tid>/stat). */
function threadNices(): number[] {
  return readdirSync('/proc/self/task').map((tid) => {
    const stat = readFileSync(`/proc/self/task/${tid}/stat`, 'utf8');
    return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16]);
  });
}

describe('background thread priority', () => {
  onLinux(
    'gives the embedded database thread its nice value and leaves the calling thread as it was',
    async () => {
      const own = threadNice(kernelThreadId()!);
      const thread = await PgliteThread.start({ queueTimeoutMs: 5000, nice: 7 });
      try {
        expect(thread.tid).not.toBeNull();
        expect(threadNice(thread.tid!)).toBe(7);
        expect(threadNice(kernelThreadId()!)).toBe(own);
      } finally {
        await thread.close();
      }
    },
    120_000,
  );

  onLinux(
    'gives each heavy-work thread its nice value',
    async () => {
      const before = threadNices().filter((n) => n === 13).length;
      const work = new WorkerThreadsHeavyWork(
        { limits: DEFAULT_EXTRACTION_LIMITS },
        { threads: 1, timeoutMs: 30_000, memoryMb: 256, nice: 13 },
      );
      try {
        await work.run('text.chunk', { text: 'one short text', options: {} });
        expect(threadNices().filter((n) => n === 13).length).toBe(before + 1);
      } finally {
        await work.close();
      }
    },
    120_000,
  );
});
