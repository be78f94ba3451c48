import { audit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { DomainError } from '../shared/errors';
import type { PageRequest } from '../shared/pagination';
import { uniqueSlug } from '../shared/slug';
import type { Agent, Distribution } from './agent';
import { loadAgent } from './agent-access';
import type { AgentDeps } from './agent-deps';

export interface DistributionInput {
  slug?: string;
  require_org_membership?: boolean;
  allowed_group_ids?: string[] | null;
}

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;

/**
 * POST /api/bots/:id/distribution/publish (permission `edit`; docs/contracts.md "Public distribution"). The agent
 * must be published (409 otherwise). The slug is unique platform-wide and never reused (409 when taken);
 * without one the agent keeps its slug or gets one made from its name. Omitted settings keep their value.
 */
export async function publishDistribution(deps: AgentDeps, actor: Actor, id: string, input: DistributionInput) {
  return deps.store.transaction(async (repos) => {
    const agent = await loadAgent(repos, actor, id, 'edit', { lock: true });
    if (agent.status !== 'published') {
      throw new DomainError('INVALID_STATE', `Only a published agent can be distributed (status is ${agent.status})`, {
        status: agent.status,
      });
    }
    let slug = agent.slug;
    if (input.slug !== undefined && input.slug !== agent.slug) {
      const wanted = input.slug.toLowerCase();
      if (!SLUG.test(wanted)) throw new DomainError('VALIDATION', 'slug must be lower-case letters, digits and single dashes');
      if (wanted !== agent.slug && (await repos.agents.slugExists(wanted)))
        throw new DomainError('CONFLICT', `The slug ${wanted} is already taken`);
      slug = wanted;
    }
    slug ??= await uniqueSlug(
      agent.name,
      (s) => repos.agents.slugExists(s),
      () => deps.ids.secret(8).replace(/[^a-z0-9]/gi, 'x'),
    );
    const groups = input.allowed_group_ids === undefined ? (agent.distribution?.allowed_group_ids ?? null) : input.allowed_group_ids;
    const distribution: Distribution = {
      require_org_membership: input.require_org_membership ?? agent.distribution?.require_org_membership ?? false,
      allowed_group_ids: groups && groups.length ? [...new Set(groups)] : null,
    };
    await repos.agents.update(agent.organizationId, agent.id, { slug, distribution, updatedAt: deps.clock.now().toISOString() });
    await audit(deps, repos, actor.userId, agent.organizationId, 'agent.distribution_publish', ['agent', agent.id], {
      slug,
      ...distribution,
    });
    return { slug, url: deps.settings.publicAgentUrl(slug), distribution };
  });
}

/** Public fields of a marketplace listing (no ids of the organization, prompts or settings). */
const publicView = (a: Agent, url: string) => ({
  slug: a.slug!,
  name: a.name,
  description: a.description,
  model: a.model,
  streamingEnabled: a.streamingEnabled,
  fileUploadsEnabled: a.fileUploadsEnabled,
  voiceEnabled: a.voiceEnabled,
  url,
  publishedAt: a.publishedAt,
});

/** GET /marketplace/agents (no authentication): distributed published agents without membership or group restrictions. */
export async function listMarketplace(deps: AgentDeps, page: PageRequest) {
  const { items, total } = await deps.store.repos.agents.listMarketplace(page);
  return {
    agents: items.map((a) => publicView(a, deps.settings.publicAgentUrl(a.slug!))),
    pagination: { limit: page.limit, offset: page.offset, total },
  };
}
