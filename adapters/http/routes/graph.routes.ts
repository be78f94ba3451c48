import type { graphOperations } from '../../../contracts/operations/graph';
import {
  deleteEntity,
  getEntity,
  getPinnedEntities,
  graphStats,
  listEntities,
  mergeEntities,
  renameEntity,
  setPinnedEntities,
} from '../../../core/graph/entities';
import type { GraphDeps } from '../../../core/graph/graph-deps';
import { searchGraph } from '../../../core/graph/graph-query';
import { listIssues } from '../../../core/graph/issues';
import {
  applySuggestions,
  listSuggestions,
  optimizeStats,
  setSuggestionStatus,
  startAiResolve,
  startGenerate,
} from '../../../core/graph/optimize';
import type { PinnedEntity } from '../../../core/ports/graph-store';
import { type HandlerMap, requireActor, typedHandlers } from '../handler';

const ok = (body: unknown, status = 200) => ({ status, body });

export function graphRoutes(d: GraphDeps): HandlerMap {
  return typedHandlers<typeof graphOperations>()({
    listGraphEntities: async (ctx) => ok(await listEntities(d, requireActor(ctx), ctx.params.id, ctx.query)),
    getGraphEntity: async (ctx) => ok(await getEntity(d, requireActor(ctx), ctx.params.id, ctx.params.entityId)),
    renameGraphEntity: async (ctx) => ok(await renameEntity(d, requireActor(ctx), ctx.params.id, ctx.params.entityId, ctx.body.name)),
    mergeGraphEntities: async (ctx) =>
      ok(await mergeEntities(d, requireActor(ctx), ctx.params.id, ctx.params.entityId, [...ctx.body.mergeEntityIds])),
    deleteGraphEntity: async (ctx) => {
      await deleteEntity(d, requireActor(ctx), ctx.params.id, ctx.params.entityId);
      return { status: 204 };
    },
    graphStats: async (ctx) => ok(await graphStats(d, requireActor(ctx), ctx.params.id)),
    graphIssues: async (ctx) => ok(await listIssues(d, requireActor(ctx), ctx.params.id, ctx.query)),
    graphOptimizeStats: async (ctx) => ok(await optimizeStats(d, requireActor(ctx), ctx.params.id)),
    listGraphSuggestions: async (ctx) => ok(await listSuggestions(d, requireActor(ctx), ctx.params.id, ctx.query)),
    generateGraphSuggestions: async (ctx) => ok(await startGenerate(d, requireActor(ctx), ctx.params.id)),
    aiResolveGraphSuggestions: async (ctx) => ok(await startAiResolve(d, requireActor(ctx), ctx.params.id)),
    setGraphSuggestionStatus: async (ctx) =>
      ok(await setSuggestionStatus(d, requireActor(ctx), ctx.params.id, ctx.params.suggestionId, ctx.body.status)),
    applyGraphSuggestions: async (ctx) => ok(await applySuggestions(d, requireActor(ctx), ctx.params.id, [...ctx.body.suggestionIds])),
    getPinnedGraphEntities: async (ctx) => ok(await getPinnedEntities(d, requireActor(ctx), ctx.params.id)),
    setPinnedGraphEntities: async (ctx) =>
      ok(await setPinnedEntities(d, requireActor(ctx), ctx.params.id, { entities: ctx.body.entities as unknown as PinnedEntity[] })),
    searchGraph: async (ctx) => ok(await searchGraph(d, requireActor(ctx), ctx.params.id, ctx.body)),
  });
}
