/**
 * Leases and the sweeper: what makes an accepted job reach a terminal state whatever crashes (docs/contracts.md "Delivery
 * guarantees"). The job's row is the truth and the outbox of its queue message (its dispatch); a worker claims
 * the row for a lease before it runs the job and renews the lease while it works; the sweeper sends the message
 * again for every non-terminal job whose lease ran out (its worker died) or whose message was never sent or was
 * lost (a broker away, an in-process queue gone with its process, a dead-lettered message). Claims are counted on
 * the row, so attempts survive redeliveries and restarts: past the last one the job is ended as `interrupted`.
 */
import type { Clock } from '../ports/clock';
import type { Job, JobHandler, JobQueue } from '../ports/job-queue';
import type { Store } from '../ports/store';
import type { JobError } from './job';
import type { JobLog } from './job-deps';

/** JOB_LEASE_SECONDS' default: a job is taken up again at most this long after its last sign of life. */
export const DEFAULT_JOB_LEASE_MS = 60_000;
/** A job whose first message was not sent this long after it was accepted is sent by the sweeper. */
export const UNSENT_GRACE_MS = 5_000;
/**
 * A job whose message was handed to a durable queue and that no worker claimed yet is most likely waiting in a
 * backlog (a soak of 600 fast uploads with a 3 s lease re-sent 6,961 such messages): it is sent again only after
 * this many leases. A message lost after it was sent is rare on a broker (a failed first send is `unsent`, a
 * dead-lettered message has been claimed, and both are taken up a lease later).
 */
export const WAITING_LEASES = 10;

export interface LeaseDeps {
  store: Store;
  clock: Clock;
  queue: JobQueue;
  log: JobLog;
  leaseMs: number;
  /**
   * True for errors that say the infrastructure is away (the database unreachable), not that the job failed:
   * such a run is left to the sweeper, which takes it up a lease later, instead of burning the queue's retries
   * in seconds.
   */
  isUnavailable?: (error: unknown) => boolean;
}

export interface LeasedOptions<T> {
  /** Claims allowed; a job claimed once more was interrupted every time (its worker died, the database left). */
  maxAttempts: number;
  /** Ends a job whose attempts all were interrupted (marks what it works on failed, removes partial writes). */
  onExhausted: (job: Job<T>, error: JobError) => Promise<void>;
}

export const interruptedError = (attempts: number): JobError => ({
  code: 'interrupted',
  message: `Processing was interrupted ${attempts} times (a worker stopped or the database was away); retry it`,
  retryable: true,
});

const failedError = (error: unknown): JobError => ({
  code: 'failed',
  message: error instanceof Error ? error.message : String(error),
  retryable: true,
});

/**
 * Wraps a queue handler of jobs that have a row: the handler runs only under this worker's lease, sees the
 * row's claim count as `job.attempt`, and a message for a job that is finished or running elsewhere is
 * acknowledged without running it. A message with no row behind it runs as before.
 */
export function leasedHandler<T>(deps: LeaseDeps, handler: JobHandler<T>, options: LeasedOptions<T>): JobHandler<T> {
  const jobs = deps.store.repos.jobs;
  const leaseEnd = () => new Date(deps.clock.now().getTime() + deps.leaseMs).toISOString();
  return async (job) => {
    const claim = await jobs.claim(job.id, leaseEnd(), deps.clock.now().toISOString());
    if (claim.state === 'missing') return handler(job);
    if (claim.state !== 'claimed') {
      deps.log('debug', `job ${job.id}: message skipped (${claim.state})`);
      return;
    }
    const { attempts } = claim;
    if (attempts > options.maxAttempts) {
      deps.log('warn', `job ${job.id}: ended as interrupted after ${attempts - 1} attempts`);
      await options.onExhausted(job, interruptedError(attempts - 1));
      return;
    }
    // Renewed at a third of the lease, so two missed renewals still leave the lease alive.
    const renew = setInterval(
      () => {
        jobs.renewLease(job.id, attempts, leaseEnd()).catch((error) => deps.log('warn', `job ${job.id}: lease not renewed`, error));
      },
      Math.max(50, Math.floor(deps.leaseMs / 3)),
    );
    renew.unref?.();
    try {
      await handler({ ...job, attempt: attempts });
    } catch (error) {
      if (deps.isUnavailable?.(error)) {
        deps.log('warn', `job ${job.id}: the database is away; the sweeper takes the job up again`, error);
        return;
      }
      // The last attempt failed and the handler left the job open: end it here, or the sweeper would run it again.
      if (attempts >= options.maxAttempts) await options.onExhausted(job, failedError(error)).catch(() => undefined);
      throw error;
    } finally {
      clearInterval(renew);
      await jobs.releaseLease(job.id, attempts).catch(() => undefined);
    }
  };
}

export interface SweepOptions {
  /**
   * The queue lost everything it held (an in-process queue after its process stopped): every non-terminal job is
   * dispatched again at once, leased or not. Only for the process that owns the data (embedded `start` at boot).
   */
  orphaned?: boolean;
  batch?: number;
}

/** Sends again the message of every job nobody runs; returns how many. Safe to run in several workers at once. */
export async function reviveStalledJobs(deps: LeaseDeps, options: SweepOptions = {}): Promise<number> {
  const now = deps.clock.now().getTime();
  const batch = options.batch ?? 200;
  let revived = 0;
  let queueAway = false;
  for (;;) {
    const at = new Date(deps.clock.now().getTime()).toISOString();
    const stalled = await deps.store.repos.jobs.takeStalled({
      leaseExpiredBefore: options.orphaned ? 'infinity' : new Date(now).toISOString(),
      // Unsent messages are due after a short grace; sent ones a lease after they were sent.
      idleBefore: options.orphaned ? at : new Date(now - deps.leaseMs).toISOString(),
      ...(options.orphaned || deps.queue.durable === false
        ? {}
        : { waitingBefore: new Date(now - WAITING_LEASES * deps.leaseMs).toISOString() }),
      at,
      limit: batch,
    });
    const unsent = options.orphaned ? [] : await takeUnsent(deps, now, at, batch);
    for (const job of [...stalled, ...unsent]) {
      try {
        await deps.queue.enqueue(job.dispatch.queue, job.dispatch.payload, { jobId: job.id });
        revived++;
      } catch (error) {
        // The queue is away: the job stays unsent, so the next sweep after the short grace tries again.
        await deps.store.repos.jobs.markDispatched(job.id, null).catch(() => undefined);
        deps.log('warn', `sweeper: job ${job.id} could not be queued`, error);
        queueAway = true;
      }
    }
    if (queueAway || stalled.length < batch) break;
  }
  if (revived) deps.log('warn', `sweeper: ${revived} job(s) dispatched again (interrupted or their message was lost)`);
  return revived;
}

/** Jobs whose first message never left (the broker was away at commit): due after UNSENT_GRACE_MS, not a lease. */
async function takeUnsent(deps: LeaseDeps, now: number, at: string, limit: number) {
  return deps.store.repos.jobs.takeStalled({
    leaseExpiredBefore: new Date(0).toISOString(),
    idleBefore: new Date(now - UNSENT_GRACE_MS).toISOString(),
    at,
    limit,
    unsentOnly: true,
  });
}
