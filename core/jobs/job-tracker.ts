import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import { recordWebhook } from '../webhooks/webhooks';
import { type JobChange, type JobDispatch, type JobError, type JobOutcome, type JobRecord } from './job';
import { JOB_ID_PATTERN, type JobDeps, type JobNotice, jobTopic } from './job-deps';
import type { JobReporter, StartJobInput } from './job-reporter';

const clampProgress = (p: number | undefined) => (p === undefined ? undefined : Math.max(0, Math.min(100, Math.round(p))));

/** A new step without its own detail clears the previous step's detail. */
function normalise(change: JobChange): JobChange {
  const out: JobChange = { ...change, progress: clampProgress(change.progress) };
  if (change.step !== undefined && change.detail === undefined) out.detail = null;
  return out;
}

export const noticeOf = (deps: Pick<JobDeps, 'kinds'>, job: JobRecord): JobNotice => ({
  jobId: job.id,
  organizationId: job.organizationId,
  status: job.status,
  emittedAt: job.emittedAt,
  event: deps.kinds.eventOf(job),
});

/**
 * The JobReporter of the platform. The store is the truth: a state change and, for the states the kind sends,
 * its webhook delivery are written in one transaction (so a recorded change never misses its webhook), then the
 * change is published (a failed publish is logged; streams re-read the store on their heartbeat). The delivery's
 * first attempt is queued after commit; core/webhooks/webhooks.ts retries and relays it from there.
 */
export class JobTracker implements JobReporter {
  constructor(private readonly deps: JobDeps) {}

  async start(input: StartJobInput): Promise<JobRecord> {
    if (!JOB_ID_PATTERN.test(input.id)) throw new DomainError('VALIDATION', `Invalid job id ${JSON.stringify(input.id)}`);
    const now = this.deps.clock.now().toISOString();
    let created = false;
    const job = await this.deps.store.transaction(async (repos) => {
      const r = await repos.jobs.create(
        {
          id: input.id,
          organizationId: input.organizationId,
          kind: input.kind,
          status: 'queued',
          progress: 0,
          step: input.step ?? null,
          stepLabel: input.stepLabel ?? null,
          detail: input.detail ?? null,
          error: null,
          result: null,
          body: input.body ?? {},
          reference: input.reference ?? {},
          webhookUrl: input.webhookUrl ?? null,
          createdBy: input.createdBy ?? null,
          createdAt: now,
          updatedAt: now,
          startedAt: null,
          finishedAt: null,
          emittedAt: now,
        },
        input.dispatch,
      );
      created = r.created;
      if (created) await this.recordWebhook(repos, r.job, true);
      return r.job;
    });
    if (created) await this.publish(job);
    if (created && input.dispatch) this.sendAfterCommit(job.id, input.dispatch);
    return job;
  }

  /** The outbox's first send; a failure is only logged: the sweeper sends the message later. */
  private sendAfterCommit(jobId: string, dispatch: JobDispatch): void {
    const { store, queue, clock, log } = this.deps;
    store.afterCommit(async () => {
      try {
        await queue.enqueue(dispatch.queue, dispatch.payload, { jobId });
        await store.repos.jobs.markDispatched(jobId, clock.now().toISOString());
      } catch (error) {
        log('warn', `job ${jobId}: its message could not be queued now; the sweeper will send it`, error);
      }
    });
  }

  async progress(jobId: string, change: JobChange): Promise<JobRecord | null> {
    const at = this.deps.clock.now().toISOString();
    // A change that names a step is a phase change (kinds may send those to the webhook); ticks are not.
    return this.change((repos) => repos.jobs.advance(jobId, normalise(change), at), change.step !== undefined);
  }

  async complete(jobId: string, outcome: JobChange & { result?: Record<string, unknown> | null } = {}): Promise<JobRecord | null> {
    return this.finish(jobId, { ...normalise(outcome), status: 'completed', result: outcome.result ?? null, error: null });
  }

  async fail(jobId: string, error: JobError, change: JobChange = {}): Promise<JobRecord | null> {
    return this.finish(jobId, { ...normalise(change), status: 'failed', error });
  }

  private async finish(jobId: string, outcome: JobOutcome): Promise<JobRecord | null> {
    const at = this.deps.clock.now().toISOString();
    return this.change((repos) => repos.jobs.finish(jobId, outcome, at), true);
  }

  private async change(apply: (repos: Repositories) => Promise<JobRecord | null>, phaseChanged: boolean): Promise<JobRecord | null> {
    const job = await this.deps.store.transaction(async (repos) => {
      const changed = await apply(repos);
      if (changed) await this.recordWebhook(repos, changed, phaseChanged);
      return changed;
    });
    if (job) await this.publish(job);
    return job;
  }

  /** The delivery of this state, once per event status and job (a resumed build re-enters its phase). */
  private async recordWebhook(repos: Repositories, job: JobRecord, phaseChanged: boolean): Promise<void> {
    if (!job.webhookUrl || !this.deps.kinds.sendsWebhook(job, phaseChanged)) return;
    const event = noticeOf(this.deps, job).event;
    const name = String(event.status ?? job.status);
    const sent = await repos.webhookDeliveries.listForJob(job.organizationId, job.id);
    if (sent.some((d) => d.event === name)) return;
    await recordWebhook(this.deps, repos, {
      organizationId: job.organizationId,
      jobId: job.id,
      url: job.webhookUrl,
      event: name,
      body: event,
      createdAt: job.emittedAt,
    });
  }

  private async publish(job: JobRecord): Promise<void> {
    await this.deps.bus
      .publish(jobTopic(job.id), noticeOf(this.deps, job))
      .catch((e) => this.deps.log('warn', `job ${job.id}: event not published (streams catch up from the store)`, e));
  }
}
