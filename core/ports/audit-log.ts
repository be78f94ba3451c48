export interface AuditEntry {
  id: string;
  organizationId: string;
  actorId: string | null;
  action: string;
  resourceType: string;
  resourceId: string | null;
  metadata: Record<string, unknown>;
  createdAt: string;
}

export type AuditInput = Omit<AuditEntry, 'id' | 'createdAt'>;
