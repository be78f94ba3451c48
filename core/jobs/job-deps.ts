import type { Clock } from '../ports/clock';
import type { EventBus } from '../ports/event-bus';
import type { IdGenerator } from '../ports/id-generator';
import type { JobQueue } from '../ports/job-queue';
import type { Store } from '../ports/store';
import type { JobStatus } from './job';
import type { JobKindRegistry } from './job-kinds';

export type JobLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;

export interface JobSettings {
  /** SSE keep-alive comment interval; each tick also re-reads the job, so a missed bus event cannot stall a stream. */
  heartbeatMs: number;
}

export const DEFAULT_JOB_SETTINGS: JobSettings = { heartbeatMs: 15_000 };

/** Everything the job contract needs: the store, the event bus (fan-out to api replicas), the queue (webhooks). */
export interface JobDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  bus: EventBus;
  queue: JobQueue;
  kinds: JobKindRegistry;
  settings: JobSettings;
  log: JobLog;
}

/** What goes over the event bus for every state change: the rendered event plus what streams need to order it. */
export interface JobNotice {
  jobId: string;
  organizationId: string;
  status: JobStatus;
  emittedAt: string;
  event: Record<string, unknown>;
}

/** One topic per job, so an api replica only receives events of jobs someone there is watching. */
export const jobTopic = (jobId: string) => `jobs.${jobId}`;

/** Job ids name bus topics: no dots or wildcards. */
export const JOB_ID_PATTERN = /^[A-Za-z0-9_-]{1,128}$/;
