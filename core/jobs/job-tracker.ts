import { DomainError } from '../shared/errors';
import { scheduleWebhook } from '../webhooks/webhooks';
import { type JobChange, type JobError, type JobOutcome, type JobRecord } from './job';
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
 * The JobReporter of the platform. The store is the truth: a state change is persisted first, then published
 * (a failed publish is logged; streams re-read the store on their heartbeat), then, for the states the kind sends,
 * queued for the job's webhook.
 */
export class JobTracker implements JobReporter {
  constructor(private readonly deps: JobDeps) {}

  async start(input: StartJobInput): Promise<JobRecord> {
    if (!JOB_ID_PATTERN.test(input.id)) throw new DomainError('VALIDATION', `Invalid job id ${JSON.stringify(input.id)}`);
    const now = this.deps.clock.now().toISOString();
    const { job, created } = await this.deps.store.repos.jobs.create({
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
    });
    if (created) await this.emitted(job);
    return job;
  }

  async progress(jobId: string, change: JobChange): Promise<JobRecord | null> {
    const job = await this.deps.store.repos.jobs.advance(jobId, normalise(change), this.deps.clock.now().toISOString());
    if (job) await this.emitted(job);
    return job;
  }

  async complete(jobId: string, outcome: JobChange & { result?: Record<string, unknown> | null } = {}): Promise<JobRecord | null> {
    return this.finish(jobId, { ...normalise(outcome), status: 'completed', result: outcome.result ?? null, error: null });
  }

  async fail(jobId: string, error: JobError, change: JobChange = {}): Promise<JobRecord | null> {
    return this.finish(jobId, { ...normalise(change), status: 'failed', error });
  }

  private async finish(jobId: string, outcome: JobOutcome): Promise<JobRecord | null> {
    const job = await this.deps.store.repos.jobs.finish(jobId, outcome, this.deps.clock.now().toISOString());
    if (job) await this.emitted(job);
    return job;
  }

  private async emitted(job: JobRecord): Promise<void> {
    const notice = noticeOf(this.deps, job);
    await this.deps.bus
      .publish(jobTopic(job.id), notice)
      .catch((e) => this.deps.log('warn', `job ${job.id}: event not published (streams catch up from the store)`, e));
    if (!job.webhookUrl || !this.deps.kinds.sendsWebhook(job)) return;
    await scheduleWebhook(this.deps, {
      organizationId: job.organizationId,
      jobId: job.id,
      url: job.webhookUrl,
      event: String(notice.event.status ?? job.status),
      body: notice.event,
    }).catch((e) => this.deps.log('error', `job ${job.id}: webhook of ${job.status} not queued`, e));
  }
}
