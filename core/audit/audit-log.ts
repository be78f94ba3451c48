import type { AuditInput } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Repositories } from '../ports/repositories';

type AuditDeps = { clock: Clock; ids: IdGenerator };

/** Writes an audit entry under the owning organization, inside the caller's transaction when given one. */
export async function recordAudit(deps: AuditDeps, repos: Repositories, input: AuditInput) {
  await repos.audit.record({ ...input, id: deps.ids.uuid(), createdAt: deps.clock.now().toISOString() });
}

/** The short form for a state change made by a signed-in user (or by the platform when `actorId` is null). */
export function audit(
  deps: AuditDeps,
  repos: Repositories,
  actorId: string | null,
  organizationId: string,
  action: string,
  resource: [type: string, id: string | null],
  metadata: Record<string, unknown> = {},
) {
  return recordAudit(deps, repos, { organizationId, actorId, action, resourceType: resource[0], resourceId: resource[1], metadata });
}
