/**
 * One job contract for every long-running job (DECISIONS "Jobs"): document ingestion, source sync, graph
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

/** The generic job event (DECISIONS "Jobs"). */
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

export interface JobRepository {
  /** Inserts the job; when the id exists already the stored job is returned unchanged (`created` false). */
  create(job: JobRecord): Promise<{ job: JobRecord; created: boolean }>;
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
