/**
 * A small pool of worker threads, one task per thread at a time. Each task is bounded: past `timeoutMs` its
 * thread is terminated (a parser stuck in a loop cannot be interrupted any other way) and past `memoryMb` of
 * heap V8 stops the thread; either way only that task fails, and a fresh thread replaces the old one on the
 * next task. Threads start on demand and do not keep the process alive while idle.
 */
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';

import { DomainError, type ErrorCode } from '../../core/shared/errors';
import { lowerThreadPriority } from '../system/thread-priority';

export interface WorkerPoolOptions {
  /** The worker's entry module (a .ts file is loaded through tsx). */
  entry: string;
  threads: number;
  timeoutMs: number;
  memoryMb: number;
  /** The threads' nice value (adapters/system/thread-priority.ts); 0 or absent: the process priority. */
  nice?: number;
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
  private readonly queue: Task[] = [];
  private nextId = 1;
  private closed = false;

  constructor(private readonly options: WorkerPoolOptions) {}

  run(name: string, input: unknown): Promise<unknown> {
    if (this.closed) return Promise.reject(new Error('The worker pool is closed'));
    return new Promise((resolve, reject) => {
      this.queue.push({ id: this.nextId++, name, input, resolve, reject });
      this.dispatch();
    });
  }

  stats() {
    const running = [...this.threads].filter((t) => t.task).length;
    return { threads: this.threads.size, running, queued: this.queue.length };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const task of this.queue.splice(0)) task.reject(new Error('The worker pool is closed'));
    await Promise.all([...this.threads].map((t) => this.stop(t, new Error('The worker pool is closed'))));
  }

  private dispatch(): void {
    while (this.queue.length) {
      const thread = [...this.threads].find((t) => t.ready && !t.task);
      if (!thread) {
        if (this.threads.size < this.options.threads) this.spawn();
        return;
      }
      this.assign(thread, this.queue.shift()!);
    }
  }

  private assign(thread: Thread, task: Task): void {
    thread.task = task;
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
      if (!thread.ready) for (const task of this.queue.splice(0)) task.reject(error);
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
