import type {
  JobChange,
  JobClaim,
  JobDispatch,
  JobOutcome,
  JobRecord,
  JobRepository,
  JobStatus,
  StalledJob,
  StalledQuery,
} from '../../../core/jobs/job';
import type { DbHandle } from '../db-handle';
import { iso, isoOrNull } from './rows';

const toJob = (r: Record<string, unknown>): JobRecord => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  kind: r.kind as string,
  status: r.status as JobStatus,
  progress: Number(r.progress),
  step: (r.step as string | null) ?? null,
  stepLabel: (r.step_label as string | null) ?? null,
  detail: (r.detail as string | null) ?? null,
  error: (r.error as JobRecord['error']) ?? null,
  result: (r.result as JobRecord['result']) ?? null,
  body: (r.body as Record<string, unknown>) ?? {},
  reference: (r.reference as Record<string, unknown>) ?? {},
  webhookUrl: (r.webhook_url as string | null) ?? null,
  createdBy: (r.created_by as string | null) ?? null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  startedAt: isoOrNull(r.started_at),
  finishedAt: isoOrNull(r.finished_at),
  emittedAt: iso(r.emitted_at),
});

const ACTIVE: JobStatus[] = ['queued', 'running'];

export class KnexJobRepository implements JobRepository {
  constructor(private readonly db: DbHandle) {}

  async create(job: JobRecord, dispatch?: JobDispatch) {
    const rows = await this.db()('jobs')
      .insert({
        id: job.id,
        organization_id: job.organizationId,
        kind: job.kind,
        status: job.status,
        progress: job.progress,
        step: job.step,
        step_label: job.stepLabel,
        detail: job.detail,
        error: job.error ? JSON.stringify(job.error) : null,
        result: job.result ? JSON.stringify(job.result) : null,
        body: JSON.stringify(job.body),
        reference: JSON.stringify(job.reference),
        webhook_url: job.webhookUrl,
        created_by: job.createdBy,
        created_at: job.createdAt,
        updated_at: job.updatedAt,
        started_at: job.startedAt,
        finished_at: job.finishedAt,
        emitted_at: job.emittedAt,
        ...(dispatch ? { queue: dispatch.queue, payload: JSON.stringify(dispatch.payload ?? null) } : {}),
      })
      .onConflict('id')
      .ignore()
      .returning('*');
    if (rows.length) return { job: toJob(rows[0]), created: true };
    const existing = await this.find(job.id);
    if (!existing) throw new Error(`job ${job.id} neither inserted nor found`);
    return { job: existing, created: false };
  }

  async claim(id: string, leaseUntil: string, at: string): Promise<JobClaim> {
    const [r] = await this.db()('jobs')
      .where({ id })
      .whereIn('status', ACTIVE)
      .andWhere((q) => q.whereNull('lease_until').orWhere('lease_until', '<', at))
      .update({ attempts: this.db().raw('attempts + 1'), lease_until: leaseUntil })
      .returning('*');
    if (r) return { state: 'claimed', job: toJob(r), attempts: Number(r.attempts) };
    const row = await this.db()('jobs').where({ id }).first('status');
    if (!row) return { state: 'missing' };
    return { state: ACTIVE.includes(row.status as JobStatus) ? 'busy' : 'finished' };
  }

  async renewLease(id: string, attempts: number, leaseUntil: string) {
    const n = await this.db()('jobs').where({ id, attempts }).whereIn('status', ACTIVE).update({ lease_until: leaseUntil });
    return n > 0;
  }

  async releaseLease(id: string, attempts: number) {
    await this.db()('jobs').where({ id, attempts }).update({ lease_until: null });
  }

  async markDispatched(id: string, at: string | null) {
    await this.db()('jobs').where({ id }).update({ dispatched_at: at });
  }

  async takeStalled(query: StalledQuery): Promise<StalledJob[]> {
    const { rows } = await this.db().raw(
      `update jobs set dispatched_at = ?, lease_until = null
       where id in (
         select id from jobs
         where status in ('queued', 'running') and queue is not null
           and ((lease_until is not null and lease_until < ?)
             or (lease_until is null and coalesce(dispatched_at, created_at) <
                   case when attempts = 0 and dispatched_at is not null then ?::timestamptz else ?::timestamptz end))
           and (? = false or dispatched_at is null)
         order by coalesce(lease_until, dispatched_at, created_at)
         limit ? for update skip locked)
       returning id, organization_id, kind, queue, payload, attempts`,
      [
        query.at,
        query.leaseExpiredBefore,
        query.waitingBefore ?? query.idleBefore,
        query.idleBefore,
        query.unsentOnly === true,
        query.limit,
      ],
    );
    return (rows as Record<string, unknown>[]).map((r) => ({
      id: r.id as string,
      organizationId: r.organization_id as string,
      kind: r.kind as string,
      dispatch: { queue: r.queue as string, payload: r.payload },
      attempts: Number(r.attempts),
    }));
  }

  async find(id: string) {
    const r = await this.db()('jobs').where({ id }).first();
    return r ? toJob(r) : null;
  }

  /** Columns every state change sets: the changed fields, updated_at, and an emitted_at after the previous one. */
  private changeColumns(change: JobChange, at: string): Record<string, unknown> {
    const db = this.db();
    const row: Record<string, unknown> = {
      updated_at: at,
      emitted_at: db.raw(`GREATEST(?::timestamptz, emitted_at + interval '1 millisecond')`, [at]),
    };
    if (change.progress !== undefined) row.progress = db.raw('GREATEST(progress, ?)', [change.progress]);
    if (change.step !== undefined) row.step = change.step;
    if (change.stepLabel !== undefined) row.step_label = change.stepLabel;
    if (change.detail !== undefined) row.detail = change.detail;
    if (change.body && Object.keys(change.body).length) row.body = db.raw('body || ?::jsonb', [JSON.stringify(change.body)]);
    return row;
  }

  async advance(id: string, change: JobChange, at: string) {
    const [r] = await this.db()('jobs')
      .where({ id })
      .whereIn('status', ACTIVE)
      .update({ ...this.changeColumns(change, at), status: 'running', started_at: this.db().raw('COALESCE(started_at, ?)', [at]) })
      .returning('*');
    return r ? toJob(r) : null;
  }

  async finish(id: string, outcome: JobOutcome, at: string) {
    const row = this.changeColumns(outcome, at);
    if (outcome.status === 'completed') row.progress = 100;
    const [r] = await this.db()('jobs')
      .where({ id })
      .whereIn('status', ACTIVE)
      .update({
        ...row,
        status: outcome.status,
        error: outcome.error ? JSON.stringify(outcome.error) : null,
        result: outcome.result ? JSON.stringify(outcome.result) : null,
        started_at: this.db().raw('COALESCE(started_at, ?)', [at]),
        finished_at: at,
      })
      .returning('*');
    return r ? toJob(r) : null;
  }
}
