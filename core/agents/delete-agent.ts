import { recordAudit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { DomainError } from '../shared/errors';
import { loadAgent } from './agent-access';
import type { AgentDeps } from './agent-deps';

/**
 * DELETE /api/bots/:id (permission `delete`): soft delete; conversations, versions and the slug stay, the
 * agent's channels are deactivated. A
 * second delete answers 404. Writes the `agent.delete` audit entry in the same transaction.
 */
export async function deleteAgent(deps: AgentDeps, actor: Actor, id: string) {
  await deps.store.transaction(async (repos) => {
    const agent = await loadAgent(repos, actor, id, 'delete', { lock: true });
    const at = deps.clock.now().toISOString();
    if (!(await repos.agents.softDelete(agent.organizationId, agent.id, at))) throw new DomainError('NOT_FOUND', 'Agent not found');
    // Its channels stop answering: inbound traffic to an inactive channel is acknowledged and dropped.
    await repos.channels.deactivateForAgent(agent.organizationId, agent.id, at);
    await recordAudit(deps, repos, {
      organizationId: agent.organizationId,
      actorId: actor.userId,
      action: 'agent.delete',
      resourceType: 'agent',
      resourceId: agent.id,
      metadata: { name: agent.name, status: agent.status, slug: agent.slug },
    });
  });
}
