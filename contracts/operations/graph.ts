import { errors, op } from '../operation';

const uuid = { type: 'string', format: 'uuid' } as const;
const str = { type: 'string' } as const;
const int = { type: 'integer' } as const;
const strings = { type: 'array', items: str } as const;
const tags = ['knowledge graph'];
const base = '/api/knowledge/kb/:id/graph';
const kbParams = { type: 'object', required: ['id'], properties: { id: uuid } } as const;
const entityParams = { type: 'object', required: ['id', 'entityId'], properties: { id: uuid, entityId: uuid } } as const;
const suggestionParams = { type: 'object', required: ['id', 'suggestionId'], properties: { id: uuid, suggestionId: uuid } } as const;
const page = (def: number) =>
  ({
    limit: { type: 'integer', minimum: 1, maximum: 1000, default: def },
    offset: { type: 'integer', minimum: 0, maximum: 2_147_483_647, default: 0 },
  }) as const;

const entity = {
  type: 'object',
  required: ['id', 'name', 'type', 'aliases', 'mentionCount', 'documentIds', 'createdAt'],
  properties: {
    id: uuid,
    knowledgeBaseId: uuid,
    name: str,
    type: str,
    aliases: strings,
    description: { type: ['string', 'null'] },
    confidence: { type: 'number' },
    mentionCount: int,
    documentIds: strings,
    createdAt: str,
    updatedAt: str,
  },
} as const;
const relationship = {
  type: 'object',
  required: ['id', 'sourceEntityId', 'targetEntityId', 'type', 'weight', 'documentId'],
  properties: {
    id: uuid,
    sourceEntityId: uuid,
    targetEntityId: uuid,
    type: str,
    weight: { type: 'number', minimum: 0, maximum: 1 },
    documentId: uuid,
    chunkIndex: int,
    createdAt: str,
  },
} as const;
const suggestion = {
  type: 'object',
  required: ['id', 'type', 'status'],
  properties: {
    id: uuid,
    type: { enum: ['duplicate', 'remove', 'rename', 'orphan', 'needs_review', 'low_confidence'] },
    status: { enum: ['pending', 'approved', 'rejected', 'applied'] },
    entityIds: strings,
    payload: { type: 'object', description: 'duplicate: {canonicalEntityId}; rename: {newName}' },
    reason: str,
    confidence: { type: 'number' },
    resolvedBy: { type: ['string', 'null'], enum: ['user', 'ai', null] },
    createdAt: str,
    updatedAt: str,
  },
} as const;
const pinned = {
  type: 'object',
  required: ['name'],
  additionalProperties: false,
  properties: {
    name: { type: 'string', minLength: 1, maxLength: 200 },
    type: { type: 'string', minLength: 1, maxLength: 60, default: 'concept' },
    aliases: { type: 'array', items: { type: 'string', maxLength: 200 }, maxItems: 50, default: [] },
  },
} as const;
const jobStarted = { type: 'object', required: ['message', 'jobId'], properties: { message: str, jobId: str } } as const;
const counts = {
  type: 'object',
  required: ['duplicate', 'remove', 'rename', 'orphan', 'needs_review', 'low_confidence'],
  properties: Object.fromEntries(['duplicate', 'remove', 'rename', 'orphan', 'needs_review', 'low_confidence'].map((c) => [c, int])),
} as const;
const read = errors(400, 401, 403, 404);

export const graphOperations = [
  op({
    operationId: 'listGraphEntities',
    method: 'get',
    path: `${base}/entities`,
    summary: 'Entities of the knowledge graph, most mentioned first; filters type, search (name or alias), documentId',
    tags,
    auth: 'user',
    params: kbParams,
    query: { type: 'object', properties: { type: str, search: str, documentId: uuid, ...page(100) } },
    responses: {
      '200': {
        description: 'Page',
        schema: {
          type: 'object',
          required: ['entities', 'total'],
          properties: { entities: { type: 'array', items: entity }, total: int, limit: int, offset: int },
        },
      },
      ...read,
    },
  }),
  op({
    operationId: 'getGraphEntity',
    method: 'get',
    path: `${base}/entities/:entityId`,
    summary: 'One entity with its 1-hop neighbourhood',
    tags,
    auth: 'user',
    params: entityParams,
    responses: {
      '200': {
        description: 'Entity',
        schema: {
          type: 'object',
          required: ['entity', 'connectedEntities', 'relationships'],
          properties: {
            entity,
            connectedEntities: { type: 'array', items: entity },
            relationships: { type: 'array', items: relationship },
          },
        },
      },
      ...read,
    },
  }),
  op({
    operationId: 'renameGraphEntity',
    method: 'patch',
    path: `${base}/entities/:entityId`,
    summary: 'Rename an entity; the old name stays as an alias (409 when another entity has the name: merge instead)',
    tags,
    auth: 'user',
    params: entityParams,
    body: { type: 'object', required: ['name'], properties: { name: { type: 'string', minLength: 1, maxLength: 200 } } },
    responses: {
      '200': { description: 'Renamed', schema: { type: 'object', required: ['entity'], properties: { entity } } },
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  op({
    operationId: 'mergeGraphEntities',
    method: 'post',
    path: `${base}/entities/:entityId/merge`,
    summary: 'Merge entities into this one: merged entities deleted, names become aliases, relationships re-pointed and de-duplicated',
    tags,
    auth: 'user',
    params: entityParams,
    body: {
      type: 'object',
      required: ['mergeEntityIds'],
      properties: { mergeEntityIds: { type: 'array', items: uuid, minItems: 1, maxItems: 500 } },
    },
    responses: {
      '200': {
        description: 'Merged',
        schema: {
          type: 'object',
          required: ['message', 'canonicalEntityId', 'mergedCount'],
          properties: { message: str, canonicalEntityId: uuid, mergedCount: int },
        },
      },
      ...read,
    },
  }),
  op({
    operationId: 'deleteGraphEntity',
    method: 'delete',
    path: `${base}/entities/:entityId`,
    summary: 'Delete an entity and its relationships',
    tags,
    auth: 'user',
    params: entityParams,
    responses: { '204': { description: 'Deleted' }, ...read },
  }),
  op({
    operationId: 'graphStats',
    method: 'get',
    path: `${base}/stats`,
    summary: 'Entity and relationship counts',
    tags,
    auth: 'user',
    params: kbParams,
    responses: {
      '200': {
        description: 'Stats',
        schema: {
          type: 'object',
          required: ['stats'],
          properties: {
            stats: {
              type: 'object',
              required: ['totalEntities', 'totalRelationships', 'entitiesByType'],
              properties: { totalEntities: int, totalRelationships: int, entitiesByType: { type: 'object' } },
            },
          },
        },
      },
      ...read,
    },
  }),
  op({
    operationId: 'graphIssues',
    method: 'get',
    path: `${base}/issues`,
    summary:
      'Issues: outstanding suggestions first (confidence, then recency), then entities matching a predicate by name. `total` counts the active category; `counts` always has the six categories',
    tags,
    auth: 'user',
    params: kbParams,
    // limit is clamped to 1-200 by the use case, so out-of-range values are accepted, not rejected
    query: {
      type: 'object',
      properties: {
        category: str,
        limit: { type: 'integer', default: 50 },
        offset: { type: 'integer', minimum: 0, maximum: 2_147_483_647, default: 0 },
      },
    },
    responses: {
      '200': {
        description: 'Issues page',
        schema: {
          type: 'object',
          required: ['issues', 'total', 'counts', 'category', 'limit', 'offset'],
          properties: {
            issues: {
              type: 'array',
              items: {
                type: 'object',
                required: ['kind', 'category'],
                properties: { kind: { enum: ['suggestion', 'entity'] }, category: str, suggestion, entity },
              },
            },
            total: int,
            counts,
            category: str,
            limit: int,
            offset: int,
          },
        },
      },
      ...read,
    },
  }),
  op({
    operationId: 'graphOptimizeStats',
    method: 'get',
    path: `${base}/optimize/stats`,
    summary: 'Counts of suggestions by type and status',
    tags,
    auth: 'user',
    params: kbParams,
    responses: {
      '200': {
        description: 'Counts',
        schema: {
          type: 'object',
          required: ['total', 'byStatus', 'byType', 'byTypeAndStatus'],
          properties: { total: int, byStatus: { type: 'object' }, byType: { type: 'object' }, byTypeAndStatus: { type: 'object' } },
        },
      },
      ...read,
    },
  }),
  op({
    operationId: 'listGraphSuggestions',
    method: 'get',
    path: `${base}/optimize/suggestions`,
    summary: 'Suggestions page (highest confidence, then newest first); filters status and type',
    tags,
    auth: 'user',
    params: kbParams,
    query: { type: 'object', properties: { status: str, type: str, ...page(50) } },
    responses: {
      '200': {
        description: 'Page',
        schema: {
          type: 'object',
          required: ['suggestions', 'total'],
          properties: { suggestions: { type: 'array', items: suggestion }, total: int, limit: int, offset: int },
        },
      },
      ...read,
    },
  }),
  op({
    operationId: 'generateGraphSuggestions',
    method: 'post',
    path: `${base}/optimize/generate`,
    summary: 'Background job replacing the pending suggestions; follow it at /api/jobs/:jobId (kind graph_optimization)',
    tags,
    auth: 'user',
    params: kbParams,
    responses: { '200': { description: 'Started', schema: jobStarted }, ...read },
  }),
  op({
    operationId: 'aiResolveGraphSuggestions',
    method: 'post',
    path: `${base}/optimize/ai-resolve`,
    summary: 'Background job approving or rejecting every pending suggestion (a model when configured, else the confidence rule)',
    tags,
    auth: 'user',
    params: kbParams,
    responses: { '200': { description: 'Started', schema: jobStarted }, ...read },
  }),
  op({
    operationId: 'setGraphSuggestionStatus',
    method: 'patch',
    path: `${base}/optimize/suggestions/:suggestionId`,
    summary: 'Approve or reject a suggestion (until it is applied)',
    tags,
    auth: 'user',
    params: suggestionParams,
    body: { type: 'object', required: ['status'], properties: { status: { enum: ['approved', 'rejected'] } } },
    responses: {
      '200': { description: 'Suggestion', schema: { type: 'object', required: ['suggestion'], properties: { suggestion } } },
      ...errors(400, 401, 403, 404, 409),
    },
  }),
  op({
    operationId: 'applyGraphSuggestions',
    method: 'post',
    path: `${base}/optimize/apply`,
    summary: 'Apply approved suggestions; the others count as failed with their reason',
    tags,
    auth: 'user',
    params: kbParams,
    body: { type: 'object', required: ['suggestionIds'], properties: { suggestionIds: { type: 'array', items: str, maxItems: 1000 } } },
    responses: {
      '200': {
        description: 'Outcome',
        schema: {
          type: 'object',
          required: ['applied', 'failed', 'errors'],
          properties: {
            applied: int,
            failed: int,
            errors: { type: 'array', items: { type: 'object', properties: { suggestionId: str, error: str } } },
          },
        },
      },
      ...read,
    },
  }),
  op({
    operationId: 'getPinnedGraphEntities',
    method: 'get',
    path: `${base}/pinned-entities`,
    summary: 'Known entities that seed extraction: {entities: [{name, type, aliases[]}]}',
    tags,
    auth: 'user',
    params: kbParams,
    responses: {
      '200': {
        description: 'Pinned',
        schema: { type: 'object', required: ['entities'], properties: { entities: { type: 'array', items: pinned } } },
      },
      ...read,
    },
  }),
  op({
    operationId: 'setPinnedGraphEntities',
    method: 'put',
    path: `${base}/pinned-entities`,
    summary: 'Replace the pinned entities: body {entities: [{name, type, aliases[]}]} (at most 500, names unique)',
    tags,
    auth: 'user',
    params: kbParams,
    body: { type: 'object', required: ['entities'], properties: { entities: { type: 'array', items: pinned, maxItems: 500 } } },
    responses: {
      '200': {
        description: 'Pinned',
        schema: { type: 'object', required: ['entities'], properties: { entities: { type: 'array', items: pinned } } },
      },
      ...read,
    },
  }),
  op({
    operationId: 'searchGraph',
    method: 'post',
    path: `${base}/search`,
    summary:
      'Entities named in the query (or a described image) with their 1-hop neighbourhood; image needs a vision model (400 otherwise)',
    tags,
    auth: 'user',
    params: kbParams,
    body: {
      type: 'object',
      required: ['query'],
      properties: { query: { type: 'string', minLength: 1, maxLength: 10_000 }, imageBase64: str, mimeType: str },
    },
    responses: {
      '200': {
        description: 'Matches',
        schema: {
          type: 'object',
          required: ['query', 'entities', 'relationships', 'formattedContext', 'matchedEntityNames'],
          properties: {
            query: str,
            entities: { type: 'array', items: entity },
            relationships: { type: 'array', items: relationship },
            formattedContext: str,
            matchedEntityNames: strings,
          },
        },
      },
      ...read,
    },
  }),
];
