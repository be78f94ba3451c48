import type { Actor } from '../identity/actor';
import { canOnResource } from '../identity/policy';
import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import { isUuid } from './agent-access';
import { isKnowledgeReady } from './knowledge-links';

/**
 * Checks the knowledge bases an agent is to be linked to (spec 7 invalid_knowledge_base_ids): each must
 * exist, belong to the organization and be editable by the caller. Returns them deduplicated, in order.
 */
export async function validateKnowledgeBaseIds(
  repos: Repositories,
  actor: Actor,
  organizationId: string,
  ids: string[],
): Promise<string[]> {
  const wanted = [...new Set(ids)];
  if (!wanted.length) return [];
  const malformed = wanted.filter((id) => !isUuid(id));
  const found = await repos.agentKnowledge.findLinkable(organizationId, actor.userId, wanted.filter(isUuid));
  const editable = new Set(found.filter((kb) => canOnResource(actor.orgRole, 'edit', kb.grants)).map((kb) => kb.id));
  const invalid = [...malformed, ...wanted.filter((id) => isUuid(id) && !editable.has(id))];
  if (invalid.length) {
    throw new DomainError('INVALID_KNOWLEDGE_BASE_IDS', 'Some knowledge bases do not exist in this organization or you cannot edit them', {
      invalidIds: invalid,
    });
  }
  return wanted;
}

export async function knowledgeReady(repos: Repositories, agentId: string): Promise<boolean> {
  return isKnowledgeReady(await repos.agentKnowledge.readiness(agentId));
}
