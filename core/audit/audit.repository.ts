import type { AuditEntry } from '../ports/audit-log';

export interface AuditRepository {
  record(entry: AuditEntry): Promise<void>;
  list(organizationId: string, page: { limit: number; offset: number; action?: string }): Promise<{ items: AuditEntry[]; total: number }>;
}
