import { isTerminal, type JobEvent, type JobRecord } from './job';

/**
 * What a kind of job may customise. Builds, for instance, render the ProvisioningEvent of spec 2.12 (buildId,
 * their own status enum from `step`, fields kept in `body`) and send each phase to their webhook.
 */
export interface JobKind {
  readonly kind: string;
  /** The event clients see (poll, SSE data, webhook body). Default: the generic JobEvent. */
  toEvent?(job: JobRecord): Record<string, unknown>;
  /**
   * Whether this state goes to the job's webhook; `phaseChanged` is true for the start, a change of step and the
   * end, false for progress ticks. Default: terminal states only (spec 6: at minimum the terminal one).
   */
  sendsWebhook?(job: JobRecord, phaseChanged: boolean): boolean;
}

export const toJobEvent = (job: JobRecord): JobEvent => ({
  jobId: job.id,
  kind: job.kind,
  status: job.status,
  progress: job.progress,
  step: job.step,
  stepLabel: job.stepLabel,
  detail: job.detail,
  error: job.error,
  result: job.result,
  emittedAt: job.emittedAt,
});

/** The kinds this process knows; unknown kinds use the generic behaviour. Register at composition time. */
export class JobKindRegistry {
  private readonly kinds = new Map<string, JobKind>();

  register(kind: JobKind): this {
    if (this.kinds.has(kind.kind)) throw new Error(`job kind "${kind.kind}" is registered twice`);
    this.kinds.set(kind.kind, kind);
    return this;
  }

  eventOf(job: JobRecord): Record<string, unknown> {
    const kind = this.kinds.get(job.kind);
    return kind?.toEvent ? kind.toEvent(job) : { ...toJobEvent(job) };
  }

  sendsWebhook(job: JobRecord, phaseChanged: boolean): boolean {
    const kind = this.kinds.get(job.kind);
    return kind?.sendsWebhook ? kind.sendsWebhook(job, phaseChanged) : isTerminal(job.status);
  }
}

/** SSE `event:` name of a state (spec 4.13 build rules, shared by every job): progress, done or error. */
export const sseEventName = (job: Pick<JobRecord, 'status'>): 'progress' | 'done' | 'error' =>
  job.status === 'completed' ? 'done' : job.status === 'failed' ? 'error' : 'progress';
