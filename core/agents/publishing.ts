import { audit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { isReviewer, loadAgent } from './agent-access';
import type { AgentDeps } from './agent-deps';
import { statusPatch } from './agent-input';
import { knowledgeReady } from './agent-knowledge';
import { toAgentView } from './agent-view';
import { auditPublishWithoutReview } from './publish-audit';
import { applyMove, type PublishingMove } from './publishing-state';

const messages: Record<string, string> = {
  submit_review: 'Agent submitted for review',
  approve: 'Agent approved',
  reject: 'Agent rejected',
  publish: 'Agent published',
};

/**
 * One workflow move on an agent (spec 3.2; rules in publishing-state.ts). Needs `edit` on the agent;
 * approve and reject also need an owner or admin (checked by the state machine).
 */
export async function moveAgent(
  deps: AgentDeps,
  actor: Actor,
  id: string,
  move: Extract<PublishingMove, 'submit_review' | 'approve' | 'reject' | 'publish'>,
  feedback?: string,
) {
  return deps.store.transaction(async (repos) => {
    const agent = await loadAgent(repos, actor, id, 'edit', { lock: true });
    const needsKnowledge = move === 'approve' || move === 'publish';
    const ready = needsKnowledge ? await knowledgeReady(repos, agent.id) : true;
    const result = applyMove(agent.status, move, { reviewer: isReviewer(actor), knowledgeReady: ready, feedback });
    const now = deps.clock.now().toISOString();
    const updated = (await repos.agents.update(agent.organizationId, agent.id, {
      ...statusPatch(agent, move, result, now, actor.userId),
      updatedAt: now,
    }))!;
    await auditPublishWithoutReview(deps, repos, actor, updated, agent.status);
    await audit(deps, repos, actor.userId, agent.organizationId, `agent.${move}`, ['agent', agent.id], {
      from: agent.status,
      to: updated.status,
    });
    return { success: true, bot: toAgentView(updated), status: updated.status, message: messages[move] };
  });
}
