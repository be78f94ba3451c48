import type { ConsumeOptions, EnqueueOptions, Job, JobHandler, JobMetadata, JobQueue, Subscription } from '../../core/ports/job-queue';
import type { JobOutcome, PlatformMetrics } from './platform-metrics';
import { currentRequestContext, runWithRequestContext } from './request-context';

/** The tracing side of jobs (adapters/opentelemetry), or none. */
export interface JobTracing {
  /** W3C traceparent of the current span, so the job's span joins the enqueuing request's trace. */
  traceparent(): string | undefined;
  /** Runs one attempt of `job` inside a span continuing `job.metadata.traceparent`. */
  inJobSpan<T>(job: Job, fn: () => Promise<T>): Promise<T>;
}

type Log = (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;

/** The adapters' own default when a consumer does not say (both queue adapters use 5). */
const DEFAULT_MAX_ATTEMPTS = 5;

/**
 * Wraps the configured job queue: a job carries the id (and trace context) of the request that enqueued it,
 * its handler runs with that id as the log context (so every log line of the job, and of jobs it enqueues in
 * turn, e.g. webhook deliveries, names the request), one line when an attempt ends, and outcome metrics.
 */
export class ObservedJobQueue implements JobQueue {
  readonly id: string;
  readonly durable?: boolean;

  constructor(
    private readonly inner: JobQueue,
    private readonly metrics: PlatformMetrics,
    private readonly log: Log,
    private readonly tracing: JobTracing | null = null,
  ) {
    this.id = inner.id;
    this.durable = inner.durable;
  }

  enqueue<T>(queue: string, payload: T, options: EnqueueOptions = {}): Promise<string> {
    const metadata: JobMetadata = { ...options.metadata };
    const requestId = currentRequestContext()?.requestId;
    if (requestId && !metadata.requestId) metadata.requestId = requestId;
    const traceparent = this.tracing?.traceparent();
    if (traceparent && !metadata.traceparent) metadata.traceparent = traceparent;
    return this.inner.enqueue(queue, payload, Object.keys(metadata).length ? { ...options, metadata } : options);
  }

  consume<T>(queue: string, handler: JobHandler<T>, options: ConsumeOptions = {}): Promise<Subscription> {
    const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    const observed: JobHandler<T> = (job) =>
      runWithRequestContext({ requestId: job.metadata?.requestId, jobId: job.id, queue: job.queue }, () =>
        this.tracing ? this.tracing.inJobSpan(job, () => this.attempt(job, handler, maxAttempts)) : this.attempt(job, handler, maxAttempts),
      );
    return this.inner.consume(queue, observed, options);
  }

  deadLetters(queue: string): Promise<Job[]> {
    return this.inner.deadLetters(queue);
  }

  async depths(): Promise<Record<string, number>> {
    return this.inner.depths ? this.inner.depths() : {};
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  private async attempt<T>(job: Job<T>, handler: JobHandler<T>, maxAttempts: number): Promise<void> {
    const started = process.hrtime.bigint();
    const finish = (outcome: JobOutcome, error?: unknown) => {
      const seconds = Number(process.hrtime.bigint() - started) / 1e9;
      this.metrics.jobFinished(job.queue, outcome, seconds);
      const line = { attempt: job.attempt, outcome, durationMs: Math.round(seconds * 1e6) / 1e3 };
      if (error === undefined) this.log('info', 'job', line);
      else
        this.log(outcome === 'failed' ? 'warn' : 'info', 'job', { ...line, error: error instanceof Error ? error.message : String(error) });
    };
    try {
      await handler(job);
    } catch (error) {
      finish(job.attempt >= maxAttempts ? 'failed' : 'retried', error);
      throw error;
    }
    finish('completed');
  }
}
