import type { Actor } from '../identity/actor';
import { DomainError } from '../shared/errors';
import type { JobRecord } from './job';
import type { JobDeps } from './job-deps';

export const jobNotFound = () => new DomainError('NOT_FOUND', 'Job not found');

/** The job, for a member of its organization (any role); anyone else gets 404 as for a missing job. */
export async function readableJob(deps: Pick<JobDeps, 'store'>, actor: Actor, jobId: string): Promise<JobRecord> {
  const repos = deps.store.repos;
  const job = typeof jobId === 'string' && jobId.length <= 128 ? await repos.jobs.find(jobId) : null;
  if (!job || !(await repos.memberships.find(job.organizationId, actor.userId))) throw jobNotFound();
  return job;
}

/** The job of an organization (API-key surfaces such as builds); another organization's job is 404. */
export async function organizationJob(deps: Pick<JobDeps, 'store'>, organizationId: string, jobId: string): Promise<JobRecord> {
  const job = typeof jobId === 'string' && jobId.length <= 128 ? await deps.store.repos.jobs.find(jobId) : null;
  if (!job || job.organizationId !== organizationId) throw jobNotFound();
  return job;
}

/** `GET /api/jobs/:jobId`: the job's current event. */
export async function getJobEvent(deps: Pick<JobDeps, 'store' | 'kinds'>, actor: Actor, jobId: string) {
  return deps.kinds.eventOf(await readableJob(deps, actor, jobId));
}

/** `GET /api/jobs/:jobId/webhook-deliveries`: what was sent to the job's webhook, oldest first (no bodies). */
export async function listJobWebhookDeliveries(deps: Pick<JobDeps, 'store'>, actor: Actor, jobId: string) {
  const job = await readableJob(deps, actor, jobId);
  const deliveries = await deps.store.repos.webhookDeliveries.listForJob(job.organizationId, job.id);
  return {
    deliveries: deliveries.map((d) => ({
      id: d.id,
      url: d.url,
      event: d.event,
      status: d.status,
      attempts: d.attempts,
      lastStatusCode: d.lastStatusCode,
      lastError: d.lastError,
      createdAt: d.createdAt,
      updatedAt: d.updatedAt,
      deliveredAt: d.deliveredAt,
    })),
  };
}
