import { recordAudit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import type { Repositories } from '../ports/repositories';
import type { Agent, AgentStatus } from './agent';
import type { AgentDeps } from './agent-deps';

/**
 * Owners and admins may take an agent live without the review step (docs/contracts.md "Publishing without review");
 * each such move is audited as `agent.publish_without_review` with the state it skipped from.
 */
export async function auditPublishWithoutReview(
  deps: AgentDeps,
  repos: Repositories,
  actor: Actor,
  agent: Agent,
  from: AgentStatus | 'new',
) {
  if (agent.status !== 'published' || from === 'approved' || from === 'published') return;
  await recordAudit(deps, repos, {
    organizationId: agent.organizationId,
    actorId: actor.userId,
    action: 'agent.publish_without_review',
    resourceType: 'agent',
    resourceId: agent.id,
    metadata: { from },
  });
}
