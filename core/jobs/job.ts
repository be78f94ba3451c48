/**
 * One job contract for every long-running job (docs/contracts.md "Jobs"): document ingestion, source sync, graph
 * optimisation, provisioning builds. A job is one row of the relational store; every state change is one job
 * event. The generic lifecycle is queued -> running -> completed | failed, progress 0-100 never goes back, and
 * `emittedAt` (the SSE id) strictly increases per job. A kind may carry its own event fields in `body` and
 * render its own event shape (job-kinds.ts), so builds need no second store.
 */
export type JobStatus = 'queued' | 'running' | 'completed' | 'failed';

export const TERMINAL_JOB_STATUSES: readonly JobStatus[] = ['completed', 'failed'];
export const isTerminal = (status: JobStatus) => status === 'completed' || status === 'failed';

export interface JobError {
  code: string;
  message: string;
  retryable: boolean;
}

export interface JobRecord {
  /** Letters, digits, `_` and `-` (a UUID, `bld_...`); it names the job's event-bus topic. */
  id: string;
  organizationId: string;
  /** `document_ingestion`, `source_sync`, `graph_optimization`, `provisioning_build`... */
  kind: string;
  status: JobStatus;
  /** 0-100, monotonic. */
  progress: number;
  /** Current phase (kind-specific vocabulary), display copy, optional sub-status. */
  step: string | null;
  stepLabel: string | null;
  detail: string | null;
  /** Set when failed. */
  error: JobError | null;
  /** Set when completed (kind-specific, e.g. the document id and chunk count). */
  result: Record<string, unknown> | null;
  /** Kind-specific event fields (a build's platform, channelTitle, agentSlug...), merged on every change. */
  body: Record<string, unknown>;
  /** What the job works on (document, source...): for the job's owner, never part of an event. */
  reference: Record<string, unknown>;
  /** HTTPS URL that receives the job's signed webhook events, or null. */
  webhookUrl: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  startedAt: string | null;
  finishedAt: string | null;
  /** When the current state was emitted (ISO 8601, millisecond precision); also the SSE `id`. */
  emittedAt: string;
}

/** A non-terminal change. Absent fields keep their value; `body` is merged into the stored body. */
export interface JobChange {
  progress?: number;
  step?: string | null;
  stepLabel?: string | null;
  detail?: string | null;
  body?: Record<string, unknown>;
}

export interface JobOutcome extends JobChange {
  status: 'completed' | 'failed';
  error?: JobError | null;
  result?: Record<string, unknown> | null;
}

/** The generic job event (docs/contracts.md "Jobs"). */
export interface JobEvent {
  jobId: string;
  kind: string;
  status: JobStatus;
  progress: number;
  step: string | null;
  stepLabel: string | null;
  detail: string | null;
  error: JobError | null;
  result: Record<string, unknown> | null;
  emittedAt: string;
}

/** The queue message that runs a job: kept on its row, so the job can be dispatched again (the row is its outbox). */
export interface JobDispatch {
  queue: string;
  payload: unknown;
}

/**
 * What `claim` found: the job is now this worker's for one lease (`attempts` counts claims, across redeliveries,
 * re-dispatches and restarts); or another worker's lease is live (`busy`); or it is terminal; or no row has that id.
 */
export type JobClaim = { state: 'claimed'; job: JobRecord; attempts: number } | { state: 'busy' | 'finished' | 'missing' };

/** A non-terminal job nobody is running: its lease ran out, or its message was never sent or is overdue. */
export interface StalledJob {
  id: string;
  organizationId: string;
  kind: string;
  dispatch: JobDispatch;
  /** Claims so far. */
  attempts: number;
}

export interface StalledQuery {
  /** A lease that ran out before this instant means its worker died. */
  leaseExpiredBefore: string;
  /** A job without a lease last dispatched (or created) before this instant has lost its message. */
  idleBefore: string;
  /**
   * For a job no worker ever claimed whose message was handed to the queue: it is most likely waiting in a backlog,
   * so it counts as lost only when dispatched before this (earlier) instant. Absent: `idleBefore`.
   */
  waitingBefore?: string;
  /** Written as the new dispatch time of the jobs returned, so the next sweep leaves them alone for a while. */
  at: string;
  limit: number;
  /** Only jobs whose message was never handed to the queue. */
  unsentOnly?: boolean;
}

export interface JobRepository {
  /**
   * Inserts the job (with its dispatch when given); when the id exists already the stored job is returned
   * unchanged (`created` false).
   */
  create(job: JobRecord, dispatch?: JobDispatch): Promise<{ job: JobRecord; created: boolean }>;
  /** Takes a queued or running job whose lease is free or ran out: attempts + 1, leased until `leaseUntil`. */
  claim(id: string, leaseUntil: string, at: string): Promise<JobClaim>;
  /** Extends the lease of the claim that counted `attempts`; false when that claim is no longer the job's. */
  renewLease(id: string, attempts: number, leaseUntil: string): Promise<boolean>;
  /** Ends the lease of the claim that counted `attempts` (the job may be claimed again at once). */
  releaseLease(id: string, attempts: number): Promise<void>;
  /** Records that the job's message was handed to the queue (null: it was not, after all). */
  markDispatched(id: string, at: string | null): Promise<void>;
  /**
   * Non-terminal jobs with a dispatch that nobody runs (see StalledQuery), at most `limit`, marked dispatched at
   * `at` and with their lease cleared in the same statement: concurrent sweepers never return the same job twice.
   */
  takeStalled(query: StalledQuery): Promise<StalledJob[]>;
  find(id: string): Promise<JobRecord | null>;
  /**
   * Applies a non-terminal change to a queued or running job (compare-and-set): status becomes running,
   * progress is the greater of the stored and the given value, emittedAt the later of `at` and one
   * millisecond after the previous emittedAt. Null when the job is missing or already terminal.
   */
  advance(id: string, change: JobChange, at: string): Promise<JobRecord | null>;
  /** Moves a queued or running job to completed (progress 100) or failed, like `advance`; null otherwise. */
  finish(id: string, outcome: JobOutcome, at: string): Promise<JobRecord | null>;
}
