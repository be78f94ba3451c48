import { errors, op } from '../operation';

/** Provisioning an agent from a channel URL (spec 4.13, 2.12, 3.3) on the API-key surface. */
const tags = ['provisioning'];
const buildParams = {
  type: 'object',
  required: ['buildId'],
  properties: { buildId: { type: 'string', minLength: 1, maxLength: 128 } },
};

export const provisioningEventSchema = {
  type: 'object',
  description: 'ProvisioningEvent (spec 2.12): one shape for the SSE data, the poll snapshot and the webhook body',
  required: ['buildId', 'status', 'progress', 'step', 'stepLabel', 'emittedAt'],
  properties: {
    buildId: { type: 'string', description: '`bld_` prefix' },
    status: { enum: ['queued', 'detecting', 'scraping', 'analyzing', 'provisioning', 'indexing', 'ready', 'failed'] },
    progress: { type: 'integer', minimum: 0, maximum: 100, description: 'Monotonic, phase-weighted' },
    step: { type: 'string', description: 'Current phase, same enum as status' },
    stepLabel: { type: 'string' },
    detail: { type: 'string' },
    platform: { type: 'string', description: 'youtube or instagram once detected (shopify or website for hinted sources)' },
    channelTitle: { type: 'string' },
    agentSlug: { type: 'string', description: 'Only when ready' },
    starterQuestions: { type: 'array', items: { type: 'string' }, description: 'Only when ready' },
    warning: { type: 'string', description: 'Soft issue (thin content); the build still reaches ready' },
    error: {
      type: 'object',
      properties: { code: { type: 'string' }, message: { type: 'string' }, retryable: { type: 'boolean' } },
      description:
        'When failed. Codes (spec 7): unsupported_url, private_or_empty, scrape_failed, analysis_failed, indexing_failed, turnstile_failed, rate_limited, plan_limit, insufficient_credits, internal',
    },
    emittedAt: { type: 'string', format: 'date-time', description: 'Also the SSE id' },
  },
};

export const provisioningOperations = [
  op({
    operationId: 'provisionAgentFromUrl',
    method: 'post',
    path: '/v1/agents\\:from-url',
    summary:
      'Starts a build of a published agent from a channel URL (scope agents:write) → 202 {buildId, status, agentSlug (ready only), streamUrl, pollUrl}. Idempotency-Key (UUID header): the same key with the same body answers the same build; the same key with another body is 409 Conflict (code idempotency_key_reused). Per organization and normalised handle at most one build runs: concurrent requests for the same channel (any key) all follow it. A published agent built from the same handle within 24 hours answers `ready` with its slug at once (no new build, no cost). Plan limits and missing credits arrive as a failed build event. Webhooks (deliver.webhookUrl, https) receive every phase change, signed as in spec 5.3.',
    tags,
    auth: 'apiKey',
    scope: 'agents:write',
    body: {
      type: 'object',
      required: ['url'],
      additionalProperties: false,
      properties: {
        url: { type: 'string', minLength: 1, maxLength: 2048 },
        sourceType: { enum: ['shopify', 'website'] },
        turnstileToken: { type: 'string', maxLength: 4096 },
        mode: { enum: ['preview', 'full'], default: 'preview' },
        intent: { type: 'string', maxLength: 200 },
        model: { type: 'string', maxLength: 200 },
        deliver: {
          type: 'object',
          additionalProperties: false,
          properties: { stream: { type: 'boolean' }, webhookUrl: { type: ['string', 'null'], maxLength: 2048 } },
        },
      },
    },
    responses: {
      '202': {
        description: 'Build accepted (queued), joined, or answered from a fresh agent (ready)',
        schema: {
          type: 'object',
          required: ['buildId', 'status', 'streamUrl', 'pollUrl'],
          properties: {
            buildId: { type: 'string' },
            status: { type: 'string' },
            agentSlug: { type: 'string' },
            streamUrl: { type: 'string' },
            pollUrl: { type: 'string' },
          },
        },
      },
      ...errors(400, 401, 403, 409),
    },
  }),
  op({
    operationId: 'streamBuildEvents',
    method: 'get',
    path: '/v1/agents/builds/:buildId/events',
    summary:
      'SSE of the build (scope agents:write): `id:` emittedAt, `event:` progress, done or error, `data:` ProvisioningEvent. The current state is replayed on connect (only if newer than Last-Event-ID), progress ticks arrive in slow phases, the stream closes after the terminal event; a client holding it already gets 204.',
    tags,
    auth: 'apiKey',
    scope: 'agents:write',
    params: buildParams,
    query: { type: 'object', properties: { lastEventId: { type: 'string', maxLength: 64 } } },
    responses: {
      '200': { description: 'Event stream', contentType: 'text/event-stream', schema: { type: 'string' } },
      '204': { description: 'The client already holds the terminal event' },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'getBuild',
    method: 'get',
    path: '/v1/agents/builds/:buildId',
    summary: 'The build snapshot (scope agents:write): the current ProvisioningEvent; another organization’s build is 404',
    tags,
    auth: 'apiKey',
    scope: 'agents:write',
    params: buildParams,
    responses: { '200': { description: 'Current event', schema: provisioningEventSchema }, ...errors(401, 403, 404) },
  }),
];
