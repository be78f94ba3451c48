import type { sourceOperations } from '../../../contracts/operations/sources';
import { lightScrape } from '../../../core/sources/light-scrape';
import { addSource, deleteSource, listSources, requestSync } from '../../../core/sources/manage-sources';
import type { SourcesDeps } from '../../../core/sources/sources-deps';
import { type HandlerMap, requireActor, typedHandlers } from '../handler';

export function sourceRoutes(d: SourcesDeps): HandlerMap {
  return typedHandlers<ReturnType<typeof sourceOperations>>()({
    addKnowledgeSource: async (ctx) => ({ status: 201, body: await addSource(d, requireActor(ctx), ctx.params.id, ctx.body) }),
    listKnowledgeSources: async (ctx) => ({ status: 200, body: await listSources(d, requireActor(ctx), ctx.params.id) }),
    syncKnowledgeSource: async (ctx) => ({
      status: 200,
      body: await requestSync(d, requireActor(ctx), ctx.params.id, ctx.params.sourceId, { webhookUrl: ctx.body.webhookUrl }),
    }),
    deleteKnowledgeSource: async (ctx) => ({
      status: 200,
      body: await deleteSource(d, requireActor(ctx), ctx.params.id, ctx.params.sourceId),
    }),
    lightScrape: async (ctx) => ({ status: 200, body: await lightScrape(d, requireActor(ctx), ctx.body.urls) }),
  });
}
