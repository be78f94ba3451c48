import type { analyticsOperations } from '../../../contracts/operations/analytics';
import type { AnalyticsAreaDeps } from '../../../core/analytics/analytics-deps';
import { rateMessage, ratePublicMessage } from '../../../core/analytics/feedback';
import { knowledgeBaseAnalytics } from '../../../core/analytics/kb-analytics';
import { refreshLearningPrior, setLearningPrior } from '../../../core/analytics/learning';
import {
  analyticsByAgent,
  analyticsByModel,
  analyticsDaily,
  analyticsOverview,
  analyticsRealtime,
} from '../../../core/analytics/organization-analytics';
import { type HandlerMap, requireActor, typedHandlers } from '../handler';

const ok = (body: unknown) => ({ status: 200, body });

export function analyticsRoutes(d: AnalyticsAreaDeps): HandlerMap {
  return typedHandlers<typeof analyticsOperations>()({
    analyticsOverview: async (ctx) => ok(await analyticsOverview(d, requireActor(ctx), ctx.query)),
    analyticsDaily: async (ctx) => ok(await analyticsDaily(d, requireActor(ctx), ctx.query)),
    analyticsModels: async (ctx) => ok(await analyticsByModel(d, requireActor(ctx), ctx.query)),
    analyticsBots: async (ctx) => ok(await analyticsByAgent(d, requireActor(ctx), ctx.query)),
    analyticsRealtime: async (ctx) => ok(await analyticsRealtime(d, requireActor(ctx), ctx.query)),
    knowledgeBaseAnalytics: async (ctx) => ok(await knowledgeBaseAnalytics(d, requireActor(ctx), ctx.params.id, ctx.query)),
    setLearningPrior: async (ctx) => ok(await setLearningPrior(d, requireActor(ctx), ctx.params.id, ctx.body.enabled)),
    refreshLearningPrior: async (ctx) => ok(await refreshLearningPrior(d, requireActor(ctx), ctx.params.id)),
    rateMessage: async (ctx) => ok(await rateMessage(d, requireActor(ctx), ctx.params.id, ctx.params.messageId, ctx.body)),
    ratePublicMessage: async (ctx) =>
      ok(await ratePublicMessage(d, ctx.params.slug, ctx.actor, ctx.params.conversationId, ctx.params.messageId, ctx.body)),
  });
}
