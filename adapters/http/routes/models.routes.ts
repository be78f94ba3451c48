import type { modelOperations } from '../../../contracts/operations/models';
import {
  type CatalogueDeps,
  freeModels,
  getModel,
  isAvailable,
  listModels,
  modelsForUseCase,
  modelsOfProvider,
  searchModels,
  syncModels,
  validateModel,
} from '../../../core/models/catalogue';
import type { Model } from '../../../core/models/model';
import { type HandlerMap, requireActor, typedHandlers } from '../handler';

export function modelRoutes(d: CatalogueDeps): HandlerMap {
  const view = (model: Model) => {
    const { useCases: _useCases, ...m } = model;
    return { ...m, available: isAvailable(d, model) };
  };
  const page = (models: Model[], extra: Record<string, unknown> = {}) => ({
    status: 200,
    body: { success: true, models: models.map(view), count: models.length, ...extra },
  });
  return typedHandlers<typeof modelOperations>()({
    listModels: async ({ query }) => page(await listModels(d, query.include_inactive === 'true')),
    freeModels: async () => page(await freeModels(d)),
    modelsByProvider: async ({ params }) => page(await modelsOfProvider(d, params.provider), { provider: params.provider }),
    modelsByUseCase: async ({ params }) => page(await modelsForUseCase(d, params.usecase), { usecase: params.usecase }),
    searchModels: async ({ params }) => page(await searchModels(d, params.query), { query: params.query }),
    getModel: async ({ params }) => ({ status: 200, body: { success: true, model: view(await getModel(d, params.id)) } }),
    validateModel: async ({ params }) => ({
      status: 200,
      body: { success: true, modelId: params.id, validation: await validateModel(d, params.id) },
    }),
    triggerModelSync: async (ctx) => ({ status: 200, body: { success: true, ...(await syncModels(d, requireActor(ctx))) } }),
  });
}
