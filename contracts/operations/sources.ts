import type { PluginDescriptor } from '../../core/plugin-contract/plugin-manifest';
import { errors, op } from '../operation';
import { pluginBodySchema, typeList } from '../plugin-schemas';
import { webhookUrlProperty } from './jobs';

const tags = ['knowledge', 'sources'];
const obj = <const P extends Record<string, unknown>, const R extends readonly (keyof P & string)[] = (keyof P & string)[]>(
  properties: P,
  required?: R,
) => ({ type: 'object', required: required ?? (Object.keys(properties) as (keyof P & string)[]), properties }) as const;
const nullableString = { type: ['string', 'null'] };
const kbParams = obj({ id: { type: 'string', format: 'uuid' } });
const sourceParams = obj({ id: { type: 'string', format: 'uuid' }, sourceId: { type: 'string', format: 'uuid' } });

export const sourceSchema = obj(
  {
    id: { type: 'string' },
    knowledgeBaseId: { type: 'string' },
    url: { type: 'string' },
    sourceType: { type: 'string' },
    options: { type: 'object' },
    syncEnabled: { type: 'boolean' },
    syncFrequencyMinutes: { type: 'integer' },
    lastSyncedAt: { ...nullableString, description: 'Last successful sync' },
    nextSyncAt: { ...nullableString, description: 'When the scheduler syncs it next (null unless syncEnabled)' },
    syncHealth: { type: 'string', description: '`pending` (never synced), `healthy` or `failing`' },
    lastSyncError: { ...nullableString, description: 'Why the last sync failed; null when healthy' },
    itemCount: { type: 'integer', description: 'Items (documents) recorded by the syncs' },
    createdAt: { type: 'string' },
    updatedAt: { type: 'string' },
  },
  [
    'id',
    'knowledgeBaseId',
    'url',
    'sourceType',
    'options',
    'syncEnabled',
    'syncFrequencyMinutes',
    'lastSyncedAt',
    'nextSyncAt',
    'syncHealth',
    'lastSyncError',
    'itemCount',
  ],
);

/**
 * Body of addKnowledgeSource: the URL, its type and sync settings, plus the options of the chosen type
 * (each plugin's options schema, spec 4.7's common options included), validated per type.
 */
export const addSourceBody = (sourceTypes: readonly PluginDescriptor[]) =>
  pluginBodySchema(sourceTypes, {
    typeField: 'sourceType',
    defaultType: 'url',
    typeNote: 'The source type (its options are accepted next to the URL):',
    optionsAt: 'inline',
    base: {
      required: ['url'],
      properties: {
        url: { type: 'string', minLength: 1, maxLength: 2048 },
        syncEnabled: { type: 'boolean', default: false },
        syncFrequencyMinutes: { type: 'integer', minimum: 5, maximum: 43200, default: 60 },
        webhookUrl: webhookUrlProperty,
      },
    },
  });

const lightScrapeResult = obj({
  url: { type: 'string' },
  sourceType: { type: 'string' },
  title: nullableString,
  textContent: { ...nullableString, description: 'At most 2000 characters' },
  author: nullableString,
  excerpt: nullableString,
  error: { ...nullableString, description: 'Why this URL could not be read (other URLs are unaffected)' },
});

/** The sources endpoints, their schemas built from the registered source types. */
export const sourceOperations = (sourceTypes: readonly PluginDescriptor[]) => [
  op({
    operationId: 'addKnowledgeSource',
    method: 'post',
    path: '/api/knowledge/kb/:id/sources/url',
    summary:
      'Add a URL or feed source and queue its first sync (needs edit on the knowledge base). The URL is checked first: unreadable, internal or unsupported URLs are 400 unsupported_url, a store that rate-limits is 503 store_throttled. Adding the same URL and type again updates that source and queues a sync. The sync reports as a job (/api/jobs/{jobId}); webhookUrl receives its terminal event.',
    tags,
    auth: 'user',
    params: kbParams,
    body: addSourceBody(sourceTypes),
    responses: {
      '201': {
        description: 'Source added, sync queued',
        schema: obj({ source: sourceSchema, jobId: { type: 'string' }, message: { type: 'string' } }),
      },
      ...errors(400, 401, 403, 404, 502, 503),
    },
  }),
  op({
    operationId: 'listKnowledgeSources',
    method: 'get',
    path: '/api/knowledge/kb/:id/sources',
    summary: 'Sources of the knowledge base with their sync health and item counts',
    tags,
    auth: 'user',
    params: kbParams,
    responses: {
      '200': { description: 'Sources', schema: obj({ sources: { type: 'array', items: sourceSchema }, count: { type: 'integer' } }) },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'syncKnowledgeSource',
    method: 'post',
    path: '/api/knowledge/kb/:id/sources/:sourceId/sync',
    summary:
      'Queue a re-sync: new items are indexed, changed items re-indexed, unchanged items skipped (needs edit). jobId is readable at /api/jobs/{jobId}; optional body {webhookUrl}',
    tags,
    auth: 'user',
    params: sourceParams,
    body: { type: 'object', additionalProperties: false, properties: { webhookUrl: webhookUrlProperty } },
    responses: {
      '200': {
        description: 'Sync queued',
        schema: obj({ message: { type: 'string' }, sourceId: { type: 'string' }, jobId: { type: 'string' } }),
      },
      ...errors(400, 401, 403, 404),
    },
  }),
  op({
    operationId: 'deleteKnowledgeSource',
    method: 'delete',
    path: '/api/knowledge/kb/:id/sources/:sourceId',
    summary: 'Remove the source and every document it added (chunks and vectors included; needs edit)',
    tags,
    auth: 'user',
    params: sourceParams,
    responses: {
      '200': {
        description: 'Deleted',
        schema: obj({
          message: { type: 'string' },
          sourceId: { type: 'string' },
          documentsDeleted: { type: 'integer' },
          chunksDeleted: { type: 'integer' },
        }),
      },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'lightScrape',
    method: 'post',
    path: '/api/knowledge/light-scrape',
    summary: 'Read up to 10 URLs without indexing them: 10 seconds per URL, text cut to 2000 characters, errors reported per URL',
    tags,
    auth: 'user',
    body: {
      type: 'object',
      required: ['urls'],
      additionalProperties: false,
      properties: {
        urls: {
          type: 'array',
          minItems: 1,
          maxItems: 10,
          items: {
            type: 'object',
            required: ['url', 'sourceType'],
            additionalProperties: false,
            properties: {
              url: { type: 'string', minLength: 1, maxLength: 2048 },
              sourceType: {
                type: 'string',
                minLength: 1,
                maxLength: 40,
                description: `A source type that can be previewed (an unknown one fails only its URL):\n${typeList(sourceTypes.filter((d) => d.capabilities.includes('preview')))}`,
              },
            },
          },
        },
      },
    },
    responses: {
      '200': { description: 'One result per URL, in request order', schema: obj({ results: { type: 'array', items: lightScrapeResult } }) },
      ...errors(400, 401),
    },
  }),
];
