import type { AuditEntry } from '../ports/audit-log';

/** Narrowing of an audit listing; `action` ending in `.` or `.*` matches a family (`agent.*`). */
export interface AuditFilter {
  action?: string;
  actorId?: string;
  resourceType?: string;
  resourceId?: string;
  /** ISO timestamps, inclusive. */
  from?: string;
  to?: string;
}

export interface AuditRepository {
  record(entry: AuditEntry): Promise<void>;
  list(organizationId: string, page: { limit: number; offset: number } & AuditFilter): Promise<{ items: AuditEntry[]; total: number }>;
}
