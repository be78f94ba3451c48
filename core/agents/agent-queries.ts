import type { Actor } from '../identity/actor';
import { activeOrganization } from '../identity/policy';
import type { PageRequest } from '../shared/pagination';
import { isReviewer, loadAgent } from './agent-access';
import type { AgentDeps } from './agent-deps';
import { toAgentView } from './agent-view';
import { isKnowledgeReady } from './knowledge-links';
import { modelInputModalities } from './model-modalities';
import { availableMoves } from './publishing-state';

/** GET /api/bots: members of the organization (viewers included), newest first. */
export async function listAgents(deps: AgentDeps, actor: Actor, page: PageRequest) {
  const organizationId = activeOrganization(actor);
  const { items, total } = await deps.store.repos.agents.list(organizationId, page);
  return { bots: items.map((a) => toAgentView(a)), pagination: { limit: page.limit, offset: page.offset, total } };
}

/** GET /api/bots/:id (permission `use`): the agent plus its knowledge bases and model input modalities. */
export async function getAgent(deps: AgentDeps, actor: Actor, id: string) {
  const repos = deps.store.repos;
  const agent = await loadAgent(repos, actor, id, 'use');
  const [knowledgeBases, modelModalities] = await Promise.all([
    repos.agentKnowledge.linkedKnowledgeBases(agent.id),
    modelInputModalities(repos, agent.model),
  ]);
  return {
    ...toAgentView(
      agent,
      knowledgeBases.map((kb) => kb.id),
    ),
    knowledgeBases: knowledgeBases.map((kb) => ({ ...kb })),
    modelInputModalities: modelModalities,
  };
}

/** GET /api/bots/:id/usage (permission `view_analytics`). */
export async function agentUsage(deps: AgentDeps, actor: Actor, id: string) {
  const agent = await loadAgent(deps.store.repos, actor, id, 'view_analytics');
  return deps.store.repos.agentUsage.totals(agent.organizationId, agent.id);
}

/** GET /api/bots/:id/indexing-status (permission `read`). */
export async function indexingStatus(deps: AgentDeps, actor: Actor, id: string) {
  const agent = await loadAgent(deps.store.repos, actor, id, 'read');
  const r = await deps.store.repos.agentKnowledge.readiness(agent.id);
  return { ...r, ready: isKnowledgeReady(r) };
}

/** GET /api/bots/:id/delete-impact (permission `delete`); 404 once deleted. */
export async function deleteImpact(deps: AgentDeps, actor: Actor, id: string) {
  const agent = await loadAgent(deps.store.repos, actor, id, 'delete');
  const [conversationCount, channels] = await Promise.all([
    deps.store.repos.agentUsage.conversationCount(agent.organizationId, agent.id),
    deps.store.repos.channels.listForAgent(agent.organizationId, agent.id),
  ]);
  return {
    agent: { id: agent.id, name: agent.name, status: agent.status, organizationId: agent.organizationId },
    publicLink: agent.slug ? { slug: agent.slug } : null,
    channels: channels.map((c) => ({ id: c.id, type: c.type, label: c.label, isActive: c.isActive })),
    conversationCount,
  };
}

/** GET /api/bots/:id/versions (permission `read`): newest first. */
export async function listAgentVersions(deps: AgentDeps, actor: Actor, id: string, page: PageRequest) {
  const agent = await loadAgent(deps.store.repos, actor, id, 'read');
  const { items, total } = await deps.store.repos.agentVersions.list(agent.id, page);
  return {
    versions: items.map((v) => ({
      id: v.id,
      version: v.version,
      changes: v.changes,
      notes: v.notes,
      createdAt: v.createdAt,
      createdBy: v.createdBy,
    })),
    total,
  };
}

/** GET /api/bots/:id/draft-status (permission `read`): the workflow state and what the caller may do next. */
export async function draftStatus(deps: AgentDeps, actor: Actor, id: string) {
  const repos = deps.store.repos;
  const agent = await loadAgent(repos, actor, id, 'read');
  const readiness = await repos.agentKnowledge.readiness(agent.id);
  return {
    id: agent.id,
    status: agent.status,
    isDraft: agent.isDraft,
    isPendingReview: agent.status === 'pending_review',
    isPublished: agent.status === 'published',
    reviewFeedback: agent.reviewFeedback,
    submittedAt: agent.submittedAt,
    reviewedAt: agent.reviewedAt,
    reviewedBy: agent.reviewedBy,
    publishedAt: agent.publishedAt,
    knowledgeReady: isKnowledgeReady(readiness),
    availableActions: availableMoves(agent.status, isReviewer(actor)).map((m) => m.replace('_', '-')),
  };
}
