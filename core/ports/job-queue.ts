export interface Job<T = unknown> {
  id: string;
  queue: string;
  payload: T;
  /** 1 on the first delivery; grows with each redelivery or retry. */
  attempt: number;
  /** Where the job came from (request id, trace context), kept across retries; absent on jobs enqueued without it. */
  metadata?: JobMetadata;
}

/** Small string facts that travel with a job for logs and traces, never read by handlers' business logic. */
export interface JobMetadata {
  /** The id of the request that enqueued the job (X-Request-Id). */
  requestId?: string;
  /** W3C trace context of the span that enqueued the job. */
  traceparent?: string;
}

export interface EnqueueOptions {
  /** Stable id: enqueueing the same id twice while the first is pending is a no-op where the adapter can tell. */
  jobId?: string;
  delayMs?: number;
  metadata?: JobMetadata;
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
  /**
   * False when messages die with the process that holds them (the in-process queue): whoever owns the data then
   * sends every unfinished job's message again at boot. Absent: messages survive (a broker).
   */
  readonly durable?: boolean;
  enqueue<T>(queue: string, payload: T, options?: EnqueueOptions): Promise<string>;
  consume<T>(queue: string, handler: JobHandler<T>, options?: ConsumeOptions): Promise<Subscription>;
  /** Jobs that exhausted their attempts, newest last (for operators and tests). */
  deadLetters(queue: string): Promise<Job[]>;
  /** Jobs waiting per queue this instance knows (ready or delayed, not running), for the queue-depth metric. */
  depths?(): Promise<Record<string, number>>;
  close(): Promise<void>;
}
export const JOB_QUEUE = Symbol.for('JobQueue');
