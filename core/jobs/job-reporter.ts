import type { JobChange, JobDispatch, JobError, JobRecord } from './job';

export interface StartJobInput {
  /** Chosen by the caller (the queue job id of the work, so workers report without a lookup). */
  id: string;
  organizationId: string;
  kind: string;
  step?: string | null;
  stepLabel?: string | null;
  detail?: string | null;
  body?: Record<string, unknown>;
  reference?: Record<string, unknown>;
  /** Already checked (core/webhooks/webhook-url.ts). */
  webhookUrl?: string | null;
  createdBy?: string | null;
  /**
   * The queue message that runs the job. It is kept on the job's row (written with the caller's transaction, if
   * one is open) and sent once that commits; a message that could not be sent or was lost is sent again by the
   * sweeper (core/jobs/job-leases.ts), so an accepted job is never left without one.
   */
  dispatch?: JobDispatch;
}

/**
 * What the owner of a long-running job calls: start (idempotent on the id), progress (monotonic, never
 * backwards), complete, fail. Each state change is persisted, then published as one job event; for a job with a
 * webhook URL, the states its kind sends (terminal ones by default) are recorded for delivery in the same
 * transaction. After a terminal state, calls are no-ops (null).
 */
export interface JobReporter {
  start(input: StartJobInput): Promise<JobRecord>;
  progress(jobId: string, change: JobChange): Promise<JobRecord | null>;
  complete(jobId: string, outcome?: JobChange & { result?: Record<string, unknown> | null }): Promise<JobRecord | null>;
  fail(jobId: string, error: JobError, change?: JobChange): Promise<JobRecord | null>;
}
