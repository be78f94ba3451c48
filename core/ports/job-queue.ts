export interface Job<T = unknown> {
  id: string;
  queue: string;
  payload: T;
  /** 1 on the first delivery; grows with each redelivery or retry. */
  attempt: number;
}

export interface EnqueueOptions {
  /** Stable id: enqueueing the same id twice while the first is pending is a no-op where the adapter can tell. */
  jobId?: string;
  delayMs?: number;
}

export interface ConsumeOptions {
  concurrency?: number;
  /** Attempts before a job goes to the dead-letter queue. */
  maxAttempts?: number;
  /** Base of the exponential backoff between attempts. */
  backoffMs?: number;
}

export type JobHandler<T = unknown> = (job: Job<T>) => Promise<void>;

export interface Subscription {
  close(): Promise<void>;
}

/**
 * Background work (ingestion, graph extraction, builds, webhooks). A handler that throws is retried with
 * backoff, then dead-lettered; a handler that returns acknowledges the job. Delivery is at-least-once, so
 * handlers must be idempotent.
 */
export interface JobQueue {
  readonly id: string;
  enqueue<T>(queue: string, payload: T, options?: EnqueueOptions): Promise<string>;
  consume<T>(queue: string, handler: JobHandler<T>, options?: ConsumeOptions): Promise<Subscription>;
  /** Jobs that exhausted their attempts, newest last (for operators and tests). */
  deadLetters(queue: string): Promise<Job[]>;
  close(): Promise<void>;
}
export const JOB_QUEUE = Symbol.for('JobQueue');
