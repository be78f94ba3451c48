import type { AuditRepository } from '../../../core/audit/audit.repository';
import type { AuditEntry } from '../../../core/ports/audit-log';
import type { DbHandle } from '../db-handle';
import { iso } from './rows';

export class KnexAuditRepository implements AuditRepository {
  constructor(private readonly db: DbHandle) {}

  async record(e: AuditEntry) {
    await this.db()('audit_log').insert({
      id: e.id,
      organization_id: e.organizationId,
      actor_id: e.actorId,
      action: e.action,
      resource_type: e.resourceType,
      resource_id: e.resourceId,
      metadata: JSON.stringify(e.metadata),
      created_at: e.createdAt,
    });
  }

  async list(organizationId: string, page: { limit: number; offset: number; action?: string }) {
    const base = () => {
      const q = this.db()('audit_log').where({ organization_id: organizationId });
      return page.action ? q.andWhere({ action: page.action }) : q;
    };
    const [{ n }] = await base().count({ n: '*' });
    const rows = await base().orderBy('created_at', 'desc').limit(page.limit).offset(page.offset);
    return {
      total: Number(n),
      items: rows.map((r) => ({
        id: r.id,
        organizationId: r.organization_id,
        actorId: r.actor_id,
        action: r.action,
        resourceType: r.resource_type,
        resourceId: r.resource_id,
        metadata: r.metadata,
        createdAt: iso(r.created_at),
      })),
    };
  }
}
