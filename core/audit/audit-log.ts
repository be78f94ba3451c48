import type { AuditInput } from '../ports/audit-log';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Repositories } from '../ports/repositories';

/** Writes an audit entry under the owning organization, inside the caller's transaction when given one. */
export async function recordAudit(deps: { clock: Clock; ids: IdGenerator }, repos: Repositories, input: AuditInput) {
  await repos.audit.record({ ...input, id: deps.ids.uuid(), createdAt: deps.clock.now().toISOString() });
}
