import type { AuditFilter, AuditRepository } from '../../../core/audit/audit.repository';
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

  async list(organizationId: string, page: { limit: number; offset: number } & AuditFilter) {
    const base = () => {
      const q = this.db()('audit_log').where({ organization_id: organizationId });
      const family = page.action?.match(/^(.+?)\.\*?$/)?.[1];
      if (family) q.andWhere('action', 'like', `${family.replace(/[\\%_]/g, '\\$&')}.%`);
      else if (page.action) q.andWhere({ action: page.action });
      if (page.actorId) q.andWhere({ actor_id: page.actorId });
      if (page.resourceType) q.andWhere({ resource_type: page.resourceType });
      if (page.resourceId) q.andWhere({ resource_id: page.resourceId });
      if (page.from) q.andWhere('created_at', '>=', page.from);
      if (page.to) q.andWhere('created_at', '<=', page.to);
      return q;
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
