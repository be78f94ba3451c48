import type { Actor } from '../identity/actor';
import { requireOrgPermission } from '../identity/policy';
import { DomainError } from '../shared/errors';
import type { AgentDeps, SetupSource } from './agent-deps';
import { toAgentView } from './agent-view';
import { insertAgent } from './create-agent';

export const MAX_SETUP_SOURCES = 3;

export interface SetupInput {
  name: string;
  description?: string;
  model?: string;
  sources: SetupSource[];
}

/**
 * POST /api/bots/setup (docs/contracts.md "Agent setup with sources"): 1-3 sources (more: too_many_sources). In one
 * transaction: a knowledge base named after the agent, then a draft agent linked to it. After commit,
 * ingestion of the sources starts through `deps.setup.ingestion` (the sources area's hook).
 */
export async function setupAgent(deps: AgentDeps, actor: Actor, input: SetupInput) {
  const organizationId = requireOrgPermission(actor, 'agents.create');
  requireOrgPermission(actor, 'knowledge_bases.create');
  if (input.sources.length > MAX_SETUP_SOURCES) {
    throw new DomainError(
      'TOO_MANY_SOURCES',
      `Agent setup takes at most ${MAX_SETUP_SOURCES} sources; add more to the knowledge base later`,
      { max: MAX_SETUP_SOURCES, given: input.sources.length },
    );
  }
  if (!input.sources.length) throw new DomainError('VALIDATION', 'sources must hold at least one source');
  const createKnowledgeBase = deps.setup.createKnowledgeBase;
  if (!createKnowledgeBase)
    throw new DomainError('NOT_CONFIGURED', 'Agent setup is not available: no knowledge base factory is configured');
  const { agent, knowledgeBase, knowledgeBaseIds } = await deps.store.transaction(async (repos) => {
    const knowledgeBase = await createKnowledgeBase(actor, { name: input.name, description: input.description ?? '' });
    const created = await insertAgent(deps, repos, actor, organizationId, {
      name: input.name,
      description: input.description,
      model: input.model,
      isDraft: true,
      knowledgeBaseIds: [knowledgeBase.id],
      notes: `Created by setup with ${input.sources.length} source(s)`,
    });
    return { ...created, knowledgeBase };
  });
  await deps.setup.ingestion.start({
    organizationId,
    userId: actor.userId,
    knowledgeBaseId: knowledgeBase.id,
    agentId: agent.id,
    sources: input.sources,
  });
  return { success: true, bot: toAgentView(agent, knowledgeBaseIds), knowledgeBase };
}
