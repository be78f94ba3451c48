/**
 * A small pool of worker threads, one task per thread at a time. Each task is bounded: past `timeoutMs` its
 * thread is terminated (a parser stuck in a loop cannot be interrupted any other way) and past `memoryMb` of
 * heap V8 stops the thread; either way only that task fails, and a fresh thread replaces the old one on the
 * next task. Threads start on demand and do not keep the process alive while idle.
 */
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';

import type { WorkAttribution } from '../../core/ports/heavy-work';
import { DomainError, type ErrorCode } from '../../core/shared/errors';
import { lowerThreadPriority } from '../system/thread-priority';
import { FairQueue } from './fair-queue';

export interface WorkerPoolOptions {
  /** The worker's entry module (a .ts file is loaded through tsx). */
  entry: string;
  threads: number;
  timeoutMs: number;
  memoryMb: number;
  /** The threads' nice value (adapters/system/thread-priority.ts); 0 or absent: the process priority. */
  nice?: number;
  /** Threads one tenant may hold while another has work (default: half of them, rounded up). */
  tenantShare?: number;
  /** How long a tenant counts as having work after its last task was submitted or ended (default 1000 ms). */
  tenantLingerMs?: number;
  /** Passed to every thread as `workerData`. */
  workerData?: unknown;
  log?: (level: 'debug' | 'warn', message: string, extra?: unknown) => void;
}

/** What a worker posts back for a task. */
export type WorkerReply =
  { id: number; output: unknown } | { id: number; error: { message: string; code?: ErrorCode; details?: unknown; domain: boolean } };

interface Task {
  id: number;
  name: string;
  input: unknown;
  tenant: string;
  party: string;
  charge?: (threadMs: number) => void;
  /** When it was handed to a thread (performance.now()). */
  startedAt?: number;
  resolve(value: unknown): void;
  reject(error: unknown): void;
}

interface Thread {
  worker: Worker;
  ready: boolean;
  task?: Task;
  timer?: NodeJS.Timeout;
}

/** Loads the entry in a thread, through tsx when it is TypeScript (development, tests, `npm start`). */
function bootstrap(entry: string): string {
  const lines = [];
  if (entry.endsWith('.ts')) lines.push(`require(${JSON.stringify(require.resolve('tsx/cjs/api'))}).register();`);
  lines.push(`require(${JSON.stringify(resolve(entry))});`);
  return lines.join('\n');
}

export class WorkerPool {
  private readonly threads = new Set<Thread>();
  private readonly queue: FairQueue<Task>;
  private nextId = 1;
  private closed = false;
  private wake?: NodeJS.Timeout;

  constructor(private readonly options: WorkerPoolOptions) {
    this.queue = new FairQueue({
      share: Math.max(1, Math.min(options.threads, options.tenantShare ?? Math.ceil(options.threads / 2))),
      lingerMs: options.tenantLingerMs ?? 1000,
    });
  }

  run(name: string, input: unknown, work?: WorkAttribution): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('The worker pool is closed'));
    return new Promise((resolve, reject) => {
      const { tenant = '', party = '', charge } = work ?? {};
      this.queue.push({ id: this.nextId++, name, input, tenant, party, charge, resolve, reject });
      this.dispatch();
    });
  }

  stats() {
    const running = [...this.threads].filter((t) => t.task).length;
    return { threads: this.threads.size, running, queued: this.queue.size };
  }

  /** Per tenant: running, waiting, tasks started, thread time used (ms). */
  usage() {
    return this.queue.usage();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.wake);
    for (const task of this.queue.drain()) task.reject(new Error('The worker pool is closed'));
    await Promise.all([...this.threads].map((t) => this.stop(t, new Error('The worker pool is closed'))));
  }

  /** Starts waiting tasks on idle threads, in the fair queue's order; starts a thread when none is idle. */
  private dispatch(): void {
    while (this.queue.size) {
      const thread = [...this.threads].find((t) => t.ready && !t.task);
      if (!thread) {
        if (this.threads.size < this.options.threads) this.spawn();
        return;
      }
      const task = this.queue.take();
      if (!task) {
        // every waiting tenant holds its share while another was just active: look again once that one has gone quiet
        const wakeIn = this.queue.wakeInMs();
        if (wakeIn !== null && !this.wake) {
          this.wake = setTimeout(
            () => {
              this.wake = undefined;
              this.dispatch();
            },
            Math.ceil(wakeIn) + 1,
          );
          this.wake.unref();
        }
        return;
      }
      this.assign(thread, task);
    }
  }

  /** The task leaves its thread: its thread time is counted for its tenant and told to its caller. */
  private release(task: Task): void {
    if (task.startedAt === undefined) return;
    const threadMs = performance.now() - task.startedAt;
    task.startedAt = undefined;
    this.queue.finished(task, threadMs);
    try {
      task.charge?.(threadMs);
    } catch (error) {
      this.options.log?.('warn', 'a heavy-work charge failed', error);
    }
  }

  private assign(thread: Thread, task: Task): void {
    thread.task = task;
    task.startedAt = performance.now();
    thread.worker.ref();
    thread.timer = setTimeout(() => {
      const error = limitError('VALIDATION', `it took longer than the ${this.options.timeoutMs} ms allowed and was stopped`, 'time');
      void this.stop(thread, error);
    }, this.options.timeoutMs);
    thread.worker.postMessage({ id: task.id, name: task.name, input: task.input });
  }

  private spawn(): void {
    const { memoryMb } = this.options;
    const worker = new Worker(bootstrap(this.options.entry), {
      eval: true,
      workerData: this.options.workerData,
      resourceLimits: { maxOldGenerationSizeMb: memoryMb, maxYoungGenerationSizeMb: Math.min(64, Math.max(8, memoryMb / 8)) },
    });
    const thread: Thread = { worker, ready: false };
    this.threads.add(thread);
    worker.on('message', (message: WorkerReply | { ready: true; tid?: number | null }) => {
      if ('ready' in message) {
        lowerThreadPriority(message.tid, this.options.nice ?? 0);
        thread.ready = true;
        worker.unref();
        this.dispatch();
        return;
      }
      this.settle(thread, message);
    });
    worker.on('error', (error: Error & { code?: string }) => {
      const failure =
        error.code === 'ERR_WORKER_OUT_OF_MEMORY'
          ? limitError('PAYLOAD_TOO_LARGE', `it needed more than the ${memoryMb} MB of memory allowed and was stopped`, 'memory')
          : error;
      this.options.log?.('warn', 'a worker thread failed', error);
      // a thread that cannot even start would fail every task the same way: fail them now, not in a loop
      if (!thread.ready) for (const task of this.queue.drain()) task.reject(error);
      this.drop(thread, failure);
    });
    worker.on('exit', () => this.drop(thread, new Error('The worker thread stopped')));
  }

  private settle(thread: Thread, reply: WorkerReply): void {
    const task = thread.task;
    if (!task || task.id !== reply.id) return;
    clearTimeout(thread.timer);
    thread.task = undefined;
    thread.worker.unref();
    this.release(task);
    if ('output' in reply) task.resolve(reply.output);
    else
      task.reject(
        reply.error.domain ? new DomainError(reply.error.code!, reply.error.message, reply.error.details) : new Error(reply.error.message),
      );
    this.dispatch();
  }

  /** Forgets a thread (it failed or exited); its task, if any, fails with `error`. */
  private drop(thread: Thread, error: unknown): void {
    if (!this.threads.delete(thread)) return;
    clearTimeout(thread.timer);
    if (thread.task) this.release(thread.task);
    thread.task?.reject(error);
    thread.task = undefined;
    if (!this.closed) this.dispatch();
  }

  private async stop(thread: Thread, error: unknown): Promise<void> {
    this.drop(thread, error);
    await thread.worker.terminate();
  }
}

/** A broken bound: the caller adds what the task was about ("\"a.pdf\" could not be processed: ..."). */
export function limitError(code: ErrorCode, reason: string, limit: 'time' | 'memory'): DomainError {
  return new DomainError(code, `The task could not finish: ${reason}`, { limit, reason });
}
