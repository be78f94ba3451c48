import type { agentOperations } from '../../../contracts/operations/agents';
import type { AgentDeps } from '../../../core/agents/agent-deps';
import { listAgentGrants, setAgentGrant } from '../../../core/agents/agent-grants';
import {
  agentUsage,
  deleteImpact,
  draftStatus,
  getAgent,
  indexingStatus,
  listAgents,
  listAgentVersions,
} from '../../../core/agents/agent-queries';
import { setupAgent } from '../../../core/agents/agent-setup';
import { createAgent } from '../../../core/agents/create-agent';
import { deleteAgent } from '../../../core/agents/delete-agent';
import { listMarketplace, publishDistribution } from '../../../core/agents/distribution';
import { moveAgent } from '../../../core/agents/publishing';
import { revertAgent, updateAgent } from '../../../core/agents/update-agent';
import { pageRequest } from '../../../core/shared/pagination';
import { type HandlerMap, requireActor, typedHandlers } from '../handler';

const page = (query: { limit?: number; offset?: number }, limit = 50) => pageRequest(query, { limit, max: 200 });

export function agentRoutes(d: AgentDeps): HandlerMap {
  return typedHandlers<typeof agentOperations>()({
    createAgent: async (ctx) => ({ status: 201, body: { success: true, bot: await createAgent(d, requireActor(ctx), ctx.body) } }),
    setupAgent: async (ctx) => ({ status: 201, body: await setupAgent(d, requireActor(ctx), ctx.body) }),
    listAgents: async (ctx) => ({ status: 200, body: await listAgents(d, requireActor(ctx), page(ctx.query)) }),
    listMarketplaceAgents: async (ctx) => ({ status: 200, body: await listMarketplace(d, page(ctx.query)) }),
    getAgent: async (ctx) => ({ status: 200, body: await getAgent(d, requireActor(ctx), ctx.params.id) }),
    updateAgent: async (ctx) => {
      const bot = await updateAgent(d, requireActor(ctx), ctx.params.id, ctx.body);
      // Spec 4.2 says "200 updated agent"; create wraps it as {success, bot}. Both readings are served.
      return { status: 200, body: { ...bot, success: true, bot } };
    },
    deleteAgent: async (ctx) => {
      await deleteAgent(d, requireActor(ctx), ctx.params.id);
      return { status: 204 };
    },
    agentUsage: async (ctx) => ({ status: 200, body: await agentUsage(d, requireActor(ctx), ctx.params.id) }),
    listAgentVersions: async (ctx) => ({
      status: 200,
      body: await listAgentVersions(d, requireActor(ctx), ctx.params.id, page(ctx.query)),
    }),
    revertAgentVersion: async (ctx) => {
      const r = await revertAgent(d, requireActor(ctx), ctx.params.id, Number(ctx.params.version), ctx.body?.notes);
      return { status: 200, body: { success: true, bot: r.bot, message: r.message } };
    },
    agentDraftStatus: async (ctx) => ({ status: 200, body: await draftStatus(d, requireActor(ctx), ctx.params.id) }),
    submitAgentForReview: async (ctx) => ({ status: 200, body: await moveAgent(d, requireActor(ctx), ctx.params.id, 'submit_review') }),
    approveAgent: async (ctx) => ({ status: 200, body: await moveAgent(d, requireActor(ctx), ctx.params.id, 'approve') }),
    rejectAgent: async (ctx) => ({ status: 200, body: await moveAgent(d, requireActor(ctx), ctx.params.id, 'reject', ctx.body.feedback) }),
    publishAgent: async (ctx) => ({ status: 200, body: await moveAgent(d, requireActor(ctx), ctx.params.id, 'publish') }),
    agentIndexingStatus: async (ctx) => ({ status: 200, body: await indexingStatus(d, requireActor(ctx), ctx.params.id) }),
    agentDeleteImpact: async (ctx) => ({ status: 200, body: await deleteImpact(d, requireActor(ctx), ctx.params.id) }),
    publishAgentDistribution: async (ctx) => ({
      status: 200,
      body: await publishDistribution(d, requireActor(ctx), ctx.params.id, ctx.body),
    }),
    listAgentGrants: async (ctx) => ({ status: 200, body: await listAgentGrants(d, requireActor(ctx), ctx.params.id) }),
    setAgentGrant: async (ctx) => ({
      status: 200,
      body: await setAgentGrant(d, requireActor(ctx), ctx.params.id, ctx.params.userId, ctx.body.permissions),
    }),
  });
}
