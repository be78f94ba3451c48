import type { Agent } from '../agents/agent';
import { modelInputModalities } from '../agents/model-modalities';
import { templateValues } from '../conversations/conversation-access';
import type { Actor } from '../identity/actor';
import type { Repositories } from '../ports/repositories';
import { resolveWelcome } from '../prompts/resolve-prompt';
import { DomainError } from '../shared/errors';
import { publicWidgetTheme } from './widget-settings';

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

export const publicAgentNotFound = () => new DomainError('NOT_FOUND', 'Agent not found');

/** Membership or group restrictions of the distribution (docs/contracts.md "Public distribution"). */
export function isRestricted(agent: Agent): boolean {
  const d = agent.distribution;
  return !!d && (d.require_org_membership || (d.allowed_group_ids?.length ?? 0) > 0);
}

/**
 * The agent behind a public slug, for this caller. Served only when it is published and distributed (has a
 * slug); deleted, unpublished, unknown: 404. Restricted agents need a verified identity (a bearer token on the
 * public lane): require_org_membership admits any member of the agent's organization (in any role, whatever
 * organization is active in the token); allowed_group_ids admits only members of the organization who belong to
 * one of those groups (docs/contracts.md "Groups"). Everyone else gets 404, exactly as for a missing agent, so a
 * restricted agent's existence is not revealed.
 */
export async function loadPublicAgent(repos: Repositories, slug: string, actor: Actor | null): Promise<Agent> {
  if (typeof slug !== 'string' || slug.length > 200 || !SLUG.test(slug)) throw publicAgentNotFound();
  const agent = await repos.agents.findBySlug(slug);
  if (!agent || agent.deletedAt || agent.status !== 'published' || agent.slug !== slug) throw publicAgentNotFound();
  if (isRestricted(agent)) {
    if (!actor) throw publicAgentNotFound();
    const membership = await repos.memberships.find(agent.organizationId, actor.userId);
    if (!membership) throw publicAgentNotFound();
    const groups = agent.distribution?.allowed_group_ids ?? [];
    if (groups.length > 0 && !(await repos.groups.isMemberOfAny(agent.organizationId, groups, actor.userId))) throw publicAgentNotFound();
  }
  return agent;
}

/**
 * `GET /api/public/agents/:slug`: the public fields of the agent (no organization, prompts or settings beyond
 * what a chat client needs), the input modalities of its model, and its welcome: a fixed welcome is rendered
 * without variables (conversation creation renders it again with the conversation); a generated one is only
 * announced (it costs a model call per conversation). `theme` is the agent's widget channel theme ({} without one).
 */
export async function getPublicAgent(repos: Repositories, slug: string, actor: Actor | null) {
  const agent = await loadPublicAgent(repos, slug, actor);
  const org = await repos.organizations.findById(agent.organizationId);
  const [modalities, welcome, theme] = await Promise.all([
    modelInputModalities(repos, agent.model),
    resolveWelcome(repos, agent.id, 'live', templateValues(agent, org, { id: '', platform: 'web', title: '' }, {}, {})),
    publicWidgetTheme(repos, agent.slug!),
  ]);
  return {
    id: agent.id,
    name: agent.name,
    description: agent.description,
    slug: agent.slug!,
    model: agent.model,
    streamingEnabled: agent.streamingEnabled,
    fileUploadsEnabled: agent.fileUploadsEnabled,
    voiceEnabled: agent.voiceEnabled,
    multimodalConfig: agent.multimodalConfig,
    modelInputModalities: modalities,
    restricted: isRestricted(agent),
    welcome: welcome ? { mode: welcome.mode, message: welcome.mode === 'fixed' ? welcome.text : null } : null,
    publishedAt: agent.publishedAt,
    theme,
  };
}
