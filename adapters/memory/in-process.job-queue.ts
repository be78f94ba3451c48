import { AsyncResource } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';

import type { ConsumeOptions, EnqueueOptions, Job, JobHandler, JobMetadata, JobQueue, Subscription } from '../../core/ports/job-queue';
import { DomainError } from '../../core/shared/errors';

/** Anything console-like; the default is `console`. */
export interface InProcessQueueLogger {
  warn(message: string, details?: unknown): void;
}

export interface InProcessJobQueueOptions {
  logger?: InProcessQueueLogger;
  /** Job ids when `jobId` is not given; defaults to `crypto.randomUUID`. */
  newId?: () => string;
}

const DEFAULT_CONCURRENCY = 1;
const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_BACKOFF_MS = 1000;
/** Upper bound of one backoff wait, so a large maxAttempts cannot overflow timers. */
const MAX_BACKOFF_MS = 60 * 60 * 1000;
const QUEUE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/;
const RESERVED_SEGMENT = /\.(dead|delay)(\.|$)/;

/** A job as stored: the payload is kept serialised, so every delivery gets a fresh copy (like a broker would). */
interface StoredJob {
  id: string;
  queue: string;
  body: string;
  attempt: number;
  metadata?: JobMetadata;
}

interface Consumer {
  handler: JobHandler<unknown>;
  /**
   * The async context of `consume()`. Handlers run in it, never in the context of whoever enqueued: otherwise
   * async-local state of the producer (an open database transaction, a request) leaks into the handler and
   * every retry after it, as it cannot on a broker.
   */
  scope: AsyncResource;
  concurrency: number;
  maxAttempts: number;
  backoffMs: number;
  running: Set<Promise<void>>;
  closed: boolean;
}

interface QueueState {
  ready: StoredJob[];
  consumers: Consumer[];
  dead: StoredJob[];
  /** Ids enqueued and not yet finished (waiting, delayed, running or waiting for a retry). */
  pendingIds: Set<string>;
  nextConsumer: number;
  dispatchScheduled: boolean;
}

/**
 * Embedded job queue: everything lives in this process's memory and is lost on exit.
 * Jobs run on a later tick than `enqueue`, in the async context of `consume` (not of the producer), retries back off exponentially
 * (`backoffMs * 2^(attempt-1)`, capped at one hour), exhausted jobs go to `deadLetters(queue)`.
 * `jobId` deduplicates while a job with that id is pending: waiting, delayed, running, or waiting for a retry.
 * Payloads go through JSON like they would on a broker (Dates become strings, `undefined` becomes null).
 */
export class InProcessJobQueue implements JobQueue {
  readonly id = 'in-process';
  readonly durable = false;
  private readonly queues = new Map<string, QueueState>();
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly running = new Set<Promise<void>>();
  private readonly logger: InProcessQueueLogger;
  private readonly newId: () => string;
  private closed = false;

  constructor(options: InProcessJobQueueOptions = {}) {
    this.logger = options.logger ?? console;
    this.newId = options.newId ?? randomUUID;
  }

  async enqueue<T>(queue: string, payload: T, options: EnqueueOptions = {}): Promise<string> {
    this.assertOpen();
    assertQueueName(queue);
    const delayMs = checkDelay(options.delayMs);
    const body = serialise(payload);
    const state = this.state(queue);
    const id = options.jobId ?? this.newId();
    if (state.pendingIds.has(id)) return id;
    state.pendingIds.add(id);
    const job: StoredJob = { id, queue, body, attempt: 1, ...(options.metadata ? { metadata: { ...options.metadata } } : {}) };
    if (delayMs > 0) this.later(delayMs, () => this.makeReady(state, job));
    else this.makeReady(state, job);
    return id;
  }

  async consume<T>(queue: string, handler: JobHandler<T>, options: ConsumeOptions = {}): Promise<Subscription> {
    this.assertOpen();
    assertQueueName(queue);
    const resolved = resolveConsumeOptions(options);
    const consumer: Consumer = {
      handler: handler as JobHandler<unknown>,
      scope: new AsyncResource('InProcessJobConsumer'),
      ...resolved,
      running: new Set(),
      closed: false,
    };
    const state = this.state(queue);
    state.consumers.push(consumer);
    this.scheduleDispatch(state);
    return {
      close: async () => {
        if (!consumer.closed) {
          consumer.closed = true;
          state.consumers = state.consumers.filter((c) => c !== consumer);
        }
        await Promise.allSettled([...consumer.running]);
      },
    };
  }

  async deadLetters(queue: string): Promise<Job[]> {
    return (this.queues.get(queue)?.dead ?? []).map(toJob);
  }

  /** Pending jobs not running yet (ready, delayed or waiting for a retry) per queue. */
  async depths(): Promise<Record<string, number>> {
    const out: Record<string, number> = {};
    for (const [name, state] of this.queues) {
      const running = state.consumers.reduce((n, c) => n + c.running.size, 0);
      out[name] = Math.max(0, state.pendingIds.size - running);
    }
    return out;
  }

  /** Stops taking jobs, drops waiting and delayed ones, and waits for running handlers to finish. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    for (const state of this.queues.values()) {
      for (const consumer of state.consumers) consumer.closed = true;
      state.consumers = [];
    }
    await Promise.allSettled([...this.running]);
  }

  private state(queue: string): QueueState {
    let state = this.queues.get(queue);
    if (!state) {
      state = { ready: [], consumers: [], dead: [], pendingIds: new Set(), nextConsumer: 0, dispatchScheduled: false };
      this.queues.set(queue, state);
    }
    return state;
  }

  private makeReady(state: QueueState, job: StoredJob): void {
    if (this.closed) return;
    state.ready.push(job);
    this.scheduleDispatch(state);
  }

  /** Dispatch on a later tick, so a handler never runs inside `enqueue` or `consume`. */
  private scheduleDispatch(state: QueueState): void {
    if (state.dispatchScheduled || this.closed) return;
    state.dispatchScheduled = true;
    setImmediate(() => {
      state.dispatchScheduled = false;
      this.dispatch(state);
    });
  }

  private dispatch(state: QueueState): void {
    while (!this.closed && state.ready.length > 0) {
      const consumer = this.pickConsumer(state);
      if (!consumer) return;
      this.run(state, consumer, state.ready.shift() as StoredJob);
    }
  }

  /** Round-robin over consumers that have a free slot. */
  private pickConsumer(state: QueueState): Consumer | undefined {
    const count = state.consumers.length;
    for (let i = 0; i < count; i++) {
      const index = (state.nextConsumer + i) % count;
      const consumer = state.consumers[index];
      if (!consumer.closed && consumer.running.size < consumer.concurrency) {
        state.nextConsumer = (index + 1) % count;
        return consumer;
      }
    }
    return undefined;
  }

  private run(state: QueueState, consumer: Consumer, job: StoredJob): void {
    const task = (async () => {
      try {
        await consumer.scope.runInAsyncScope(() => consumer.handler(toJob(job)));
        state.pendingIds.delete(job.id);
      } catch (err) {
        this.fail(state, consumer, job, err);
      }
    })().finally(() => {
      consumer.running.delete(task);
      this.running.delete(task);
      this.scheduleDispatch(state);
    });
    consumer.running.add(task);
    this.running.add(task);
  }

  private fail(state: QueueState, consumer: Consumer, job: StoredJob, err: unknown): void {
    if (job.attempt >= consumer.maxAttempts) {
      state.pendingIds.delete(job.id);
      state.dead.push(job);
      this.logger.warn(`job ${job.id} on queue ${job.queue} dead-lettered after ${job.attempt} attempts`, {
        error: errorMessage(err),
      });
      return;
    }
    const wait = backoffDelay(consumer.backoffMs, job.attempt);
    this.later(wait, () => this.makeReady(state, { ...job, attempt: job.attempt + 1 }));
  }

  private later(ms: number, fn: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      fn();
    }, ms);
    this.timers.add(timer);
  }

  private assertOpen(): void {
    if (this.closed) throw new DomainError('INVALID_STATE', 'The job queue is closed');
  }
}

export function resolveConsumeOptions(options: ConsumeOptions): {
  concurrency: number;
  maxAttempts: number;
  backoffMs: number;
} {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  if (!Number.isInteger(concurrency) || concurrency < 1) throw new DomainError('VALIDATION', 'concurrency must be an integer >= 1');
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new DomainError('VALIDATION', 'maxAttempts must be an integer >= 1');
  if (!Number.isFinite(backoffMs) || backoffMs < 0) throw new DomainError('VALIDATION', 'backoffMs must be a number >= 0');
  return { concurrency, maxAttempts, backoffMs };
}

/** Wait before the next attempt after `failedAttempt` failed. */
export function backoffDelay(baseMs: number, failedAttempt: number): number {
  return Math.min(Math.round(baseMs * 2 ** (failedAttempt - 1)), MAX_BACKOFF_MS);
}

function checkDelay(delayMs: number | undefined): number {
  if (delayMs === undefined) return 0;
  if (!Number.isFinite(delayMs) || delayMs < 0) throw new DomainError('VALIDATION', 'delayMs must be a number >= 0');
  if (delayMs > 2_147_483_647) throw new DomainError('VALIDATION', 'delayMs must be at most 2147483647');
  return Math.round(delayMs);
}

function assertQueueName(queue: string): void {
  if (typeof queue !== 'string' || !QUEUE_NAME.test(queue) || RESERVED_SEGMENT.test(queue)) {
    throw new DomainError('VALIDATION', `Invalid queue name: ${JSON.stringify(queue)}`);
  }
}

function serialise(payload: unknown): string {
  let body: string | undefined;
  try {
    body = JSON.stringify(payload ?? null);
  } catch (err) {
    throw new DomainError('VALIDATION', `Job payload is not JSON-serialisable: ${errorMessage(err)}`);
  }
  if (body === undefined) throw new DomainError('VALIDATION', 'Job payload is not JSON-serialisable');
  return body;
}

function toJob(stored: StoredJob): Job {
  const job: Job = { id: stored.id, queue: stored.queue, payload: JSON.parse(stored.body) as unknown, attempt: stored.attempt };
  if (stored.metadata) job.metadata = { ...stored.metadata };
  return job;
}

function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}
