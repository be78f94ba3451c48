import type {
  WebhookAttempt,
  WebhookDelivery,
  WebhookDeliveryRepository,
  WebhookDeliveryStatus,
} from '../../../core/webhooks/webhook-delivery';
import type { DbHandle } from '../db-handle';
import { iso, isoOrNull } from './rows';

const toDelivery = (r: Record<string, unknown>): WebhookDelivery => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  jobId: (r.job_id as string | null) ?? null,
  url: r.url as string,
  event: r.event as string,
  body: r.body as string,
  status: r.status as WebhookDeliveryStatus,
  attempts: Number(r.attempts),
  lastStatusCode: r.last_status_code == null ? null : Number(r.last_status_code),
  lastError: (r.last_error as string | null) ?? null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  deliveredAt: isoOrNull(r.delivered_at),
});

export class KnexWebhookDeliveryRepository implements WebhookDeliveryRepository {
  constructor(private readonly db: DbHandle) {}

  async create(d: WebhookDelivery) {
    await this.db()('webhook_deliveries').insert({
      id: d.id,
      organization_id: d.organizationId,
      job_id: d.jobId,
      url: d.url,
      event: d.event,
      body: d.body,
      status: d.status,
      attempts: d.attempts,
      last_status_code: d.lastStatusCode,
      last_error: d.lastError,
      created_at: d.createdAt,
      updated_at: d.updatedAt,
      delivered_at: d.deliveredAt,
    });
  }

  async find(organizationId: string, id: string) {
    const r = await this.db()('webhook_deliveries').where({ organization_id: organizationId, id }).first();
    return r ? toDelivery(r) : null;
  }

  async recordAttempt(organizationId: string, id: string, previousAttempts: number, a: WebhookAttempt) {
    const n = await this.db()('webhook_deliveries')
      .where({ organization_id: organizationId, id, status: 'pending', attempts: previousAttempts })
      .update({
        attempts: a.attempts,
        status: a.status,
        last_status_code: a.lastStatusCode,
        last_error: a.lastError ? a.lastError.slice(0, 1000) : null,
        updated_at: a.updatedAt,
        delivered_at: a.deliveredAt,
      });
    return n === 1;
  }

  async claimAttempt(organizationId: string, id: string, previousAttempts: number, at: string) {
    const n = await this.db()('webhook_deliveries')
      .where({ organization_id: organizationId, id, status: 'pending', attempts: previousAttempts })
      .update({ attempts: previousAttempts + 1, updated_at: at });
    return n === 1;
  }

  async listForJob(organizationId: string, jobId: string) {
    const rows = await this.db()('webhook_deliveries')
      .where({ organization_id: organizationId, job_id: jobId })
      .orderBy([{ column: 'created_at' }, { column: 'id' }]);
    return rows.map(toDelivery);
  }

  async firstPendingOfJob(organizationId: string, jobId: string) {
    const r = await this.db()('webhook_deliveries')
      .where({ organization_id: organizationId, job_id: jobId, status: 'pending' })
      .orderBy([{ column: 'created_at' }, { column: 'id' }])
      .first();
    return r ? toDelivery(r) : null;
  }

  async listStalled(before: string, limit: number) {
    const rows = await this.db()('webhook_deliveries as d')
      .where('d.status', 'pending')
      .andWhere('d.updated_at', '<', before)
      .whereNotExists((q) =>
        q
          .select(this.db().raw('1'))
          .from('webhook_deliveries as o')
          .whereRaw('o.job_id = d.job_id')
          .andWhere('o.status', 'pending')
          .andWhereRaw('(o.created_at, o.id) < (d.created_at, d.id)'),
      )
      .orderBy([{ column: 'd.created_at' }, { column: 'd.id' }])
      .limit(limit)
      .select('d.*');
    return rows.map(toDelivery);
  }
}
