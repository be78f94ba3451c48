import { audit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { requireOrgPermission } from '../identity/policy';
import { assertModelAvailable } from '../models/model-availability';
import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import type { Agent } from './agent';
import { isReviewer } from './agent-access';
import type { AgentDeps } from './agent-deps';
import { type AgentInput, recordVersion, statusPatch } from './agent-input';
import { knowledgeReady, validateKnowledgeBaseIds } from './agent-knowledge';
import { toAgentView } from './agent-view';
import { auditPublishWithoutReview } from './publish-audit';
import { applyMove } from './publishing-state';

/** Spec 8 plan limits: agents that are not deleted count against the organization's plan. */
export async function checkAgentPlanLimit(repos: Repositories, organizationId: string) {
  await repos.agents.lockOrganization(organizationId);
  const org = await repos.organizations.findById(organizationId);
  if (!org) throw new DomainError('NOT_FOUND', 'Organization not found');
  const count = await repos.agents.countLive(organizationId);
  if (count >= org.plan.agents) {
    throw new DomainError('PLAN_LIMIT', `Your plan allows ${org.plan.agents} agents`, {
      limit: org.plan.agents,
      used: count,
      resource: 'agents',
    });
  }
}

/**
 * Inserts a new agent with its knowledge links and version 1, inside the caller's transaction. A non-draft
 * agent must pass the knowledge readiness rule (spec 3.2), else nothing is kept.
 */
export async function insertAgent(
  deps: AgentDeps,
  repos: Repositories,
  actor: Actor,
  organizationId: string,
  input: AgentInput & { name: string },
) {
  if (input.model !== undefined) assertModelAvailable(deps.models, input.model);
  await checkAgentPlanLimit(repos, organizationId);
  const knowledgeBaseIds = await validateKnowledgeBaseIds(repos, actor, organizationId, input.knowledgeBaseIds ?? []);
  const now = deps.clock.now().toISOString();
  const draft: Agent = {
    id: deps.ids.uuid(),
    organizationId,
    name: input.name,
    description: input.description ?? '',
    model: input.model ?? deps.settings.defaultModel,
    systemPrompt: input.systemPrompt ?? null,
    isDraft: true,
    status: 'draft',
    streamingEnabled: input.streamingEnabled ?? true,
    fileUploadsEnabled: input.fileUploadsEnabled ?? false,
    voiceEnabled: input.voiceEnabled ?? false,
    voiceSettings: input.voiceSettings ?? null,
    multimodalConfig: input.multimodalConfig ?? null,
    tools: input.tools ?? [],
    templateVariables: input.templateVariables ?? [],
    slug: null,
    distribution: null,
    reviewFeedback: null,
    submittedAt: null,
    reviewedBy: null,
    reviewedAt: null,
    publishedAt: null,
    createdBy: actor.userId,
    createdAt: now,
    updatedAt: now,
    deletedAt: null,
  };
  await repos.agents.create(draft);
  await repos.agentKnowledge.replaceLinks(organizationId, draft.id, knowledgeBaseIds, now);
  let agent = draft;
  if (input.isDraft === false) {
    // Owners and admins go live at once (audited); members submit the new agent for review.
    const reviewer = isReviewer(actor);
    const result = applyMove(draft.status, 'mark_live', { reviewer, knowledgeReady: await knowledgeReady(repos, draft.id) });
    agent = (await repos.agents.update(organizationId, draft.id, statusPatch(draft, 'mark_live', result, now, actor.userId)))!;
    await auditPublishWithoutReview(deps, repos, actor, agent, 'new');
  }
  await recordVersion(repos, deps, agent, knowledgeBaseIds, input.notes ?? 'Initial version', now, actor.userId);
  return { agent, knowledgeBaseIds };
}

/** POST /api/bots: members and above (viewers cannot create agents). */
export async function createAgent(deps: AgentDeps, actor: Actor, input: AgentInput & { name: string }) {
  const organizationId = requireOrgPermission(actor, 'agents.create');
  const { agent, knowledgeBaseIds } = await deps.store.transaction(async (repos) => {
    const created = await insertAgent(deps, repos, actor, organizationId, input);
    await audit(deps, repos, actor.userId, organizationId, 'agent.create', ['agent', created.agent.id], {
      status: created.agent.status,
      knowledgeBaseIds: created.knowledgeBaseIds,
    });
    return created;
  });
  return toAgentView(agent, knowledgeBaseIds);
}
