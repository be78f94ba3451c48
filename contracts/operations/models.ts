import { errors, op } from '../operation';

const model = {
  type: 'object',
  required: [
    'id',
    'name',
    'provider',
    'contextLength',
    'promptPricePerToken',
    'completionPricePerToken',
    'isActive',
    'available',
    'isFree',
    'capabilities',
    'recommendationScore',
    'lastSyncedAt',
  ],
  properties: {
    id: { type: 'string' },
    name: { type: 'string' },
    provider: { type: 'string' },
    contextLength: { type: 'integer' },
    promptPricePerToken: { type: 'number' },
    completionPricePerToken: { type: 'number' },
    isActive: { type: 'boolean', description: 'Listed in the catalogue (not retired by a model sync).' },
    available: {
      type: 'boolean',
      description:
        'Usable now: active and, for a chat model, served by a configured provider. Agents can only be given available models (400 MODEL_NOT_AVAILABLE otherwise).',
    },
    isFree: { type: 'boolean' },
    capabilities: { type: 'object' },
    recommendationScore: { type: 'number' },
    lastSyncedAt: { type: ['string', 'null'] },
  },
};
const list = (extra: Record<string, unknown> = {}) => ({
  description: 'Models',
  schema: {
    type: 'object',
    required: ['success', 'models', 'count'],
    properties: { success: { const: true }, models: { type: 'array', items: model }, count: { type: 'integer' }, ...extra },
  },
});
const one = (name: string) => ({
  type: 'object',
  required: [name],
  properties: { [name]: { type: 'string', minLength: 1, maxLength: 200 } },
});

export const modelOperations = [
  op({
    operationId: 'listModels',
    method: 'get',
    path: '/api/models',
    summary: 'The model catalogue (active models unless include_inactive=true)',
    tags: ['models'],
    auth: 'user',
    query: { type: 'object', properties: { include_inactive: { enum: ['true', 'false'] } } },
    responses: { '200': list(), ...errors(401) },
  }),
  op({
    operationId: 'freeModels',
    method: 'get',
    path: '/api/models/filter/free',
    summary: 'Free models',
    tags: ['models'],
    auth: 'user',
    responses: { '200': list(), ...errors(401) },
  }),
  op({
    operationId: 'modelsByProvider',
    method: 'get',
    path: '/api/models/provider/:provider',
    summary: 'Models of one provider',
    tags: ['models'],
    auth: 'user',
    params: one('provider'),
    responses: { '200': list({ provider: { type: 'string' } }), ...errors(401) },
  }),
  op({
    operationId: 'modelsByUseCase',
    method: 'get',
    path: '/api/models/usecase/:usecase',
    summary: 'Models recommended for a use case (chat, coding, creative, analysis, embeddings, rerank)',
    tags: ['models'],
    auth: 'user',
    params: one('usecase'),
    responses: { '200': list({ usecase: { type: 'string' } }), ...errors(401) },
  }),
  op({
    operationId: 'searchModels',
    method: 'get',
    path: '/api/models/search/:query',
    summary: 'Search models by id, name or provider',
    tags: ['models'],
    auth: 'user',
    params: one('query'),
    responses: { '200': list({ query: { type: 'string' } }), ...errors(401) },
  }),
  op({
    operationId: 'getModel',
    method: 'get',
    path: '/api/models/:id',
    summary: 'One model; the id is URL-encoded (slash as %2F)',
    tags: ['models'],
    auth: 'user',
    params: one('id'),
    responses: {
      '200': {
        description: 'Model',
        schema: { type: 'object', required: ['success', 'model'], properties: { success: { const: true }, model } },
      },
      ...errors(401, 404),
    },
  }),
  op({
    operationId: 'validateModel',
    method: 'get',
    path: '/api/models/:id/validation',
    summary: 'Whether an agent can use this model for chat',
    tags: ['models'],
    auth: 'user',
    params: one('id'),
    responses: {
      '200': {
        description: 'Validation',
        schema: {
          type: 'object',
          required: ['success', 'modelId', 'validation'],
          properties: {
            success: { const: true },
            modelId: { type: 'string' },
            validation: {
              type: 'object',
              properties: {
                valid: { type: 'boolean' },
                exists: { type: 'boolean' },
                isActive: { type: 'boolean' },
                available: { type: 'boolean' },
                supportsChat: { type: 'boolean' },
                issues: { type: 'array', items: { type: 'string' } },
              },
            },
          },
        },
      },
      ...errors(401),
    },
  }),
  op({
    operationId: 'triggerModelSync',
    method: 'post',
    path: '/api/admin/model-sync/trigger',
    summary: 'Sync the catalogue from the configured provider listing (superadmin)',
    tags: ['models', 'admin'],
    auth: 'user',
    responses: {
      '200': {
        description: 'Sync status and count',
        schema: {
          type: 'object',
          required: ['success', 'status', 'count'],
          properties: {
            success: { const: true },
            status: { type: 'string' },
            source: { type: 'string' },
            count: { type: 'integer' },
            deactivated: { type: 'integer' },
            syncedAt: { type: 'string' },
          },
        },
      },
      ...errors(401, 403, 502),
    },
  }),
];
