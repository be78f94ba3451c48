import { errors, op } from '../operation';

/** The job contract (docs/contracts.md "Jobs"): current state, event stream, webhook deliveries. */
const tags = ['jobs'];
const jobParams = {
  type: 'object',
  required: ['jobId'],
  properties: { jobId: { type: 'string', minLength: 1, maxLength: 128 } },
};
const nullableString = { type: ['string', 'null'] };

/** The `webhookUrl` accepted by requests that start a job (document upload and retry, source add and sync). */
export const webhookUrlProperty = {
  type: ['string', 'null'],
  maxLength: 2048,
  description:
    "Optional https URL that receives the job's terminal event (completed or failed) as POST JSON, signed like builds (spec 5.3): `X-Service-Signature: sha256=<hex>` HMAC-SHA256 of the raw body with the platform webhook secret, `X-Service-Event: <status>`, plus `X-Service-Delivery` (id, the same on every attempt). Any non-2xx answer is retried with backoff, 3 attempts in all; deliveries are listed at GET /api/jobs/{jobId}/webhook-deliveries. Not https: 400 Validation Error; an internal address is refused at delivery (recorded as failed).",
};

export const jobEventSchema = {
  type: 'object',
  description:
    'A job event: {jobId, kind, status, progress, step, stepLabel, detail, error, result, emittedAt}. kind is document_ingestion (steps load, chunk, embed, store, graph, summary, then done; result {documentId, knowledgeBaseId, chunkCount}), source_sync (steps listing, indexing, done; result: the sync report) or the kind of another job. A provisioning build answers with its ProvisioningEvent (spec 2.12) instead.',
  required: ['jobId', 'kind', 'status', 'progress', 'step', 'stepLabel', 'detail', 'error', 'result', 'emittedAt'],
  properties: {
    jobId: { type: 'string' },
    kind: { type: 'string' },
    status: { enum: ['queued', 'running', 'completed', 'failed'] },
    progress: { type: 'integer', minimum: 0, maximum: 100, description: 'Monotonic' },
    step: nullableString,
    stepLabel: nullableString,
    detail: nullableString,
    error: {
      type: ['object', 'null'],
      properties: { code: { type: 'string' }, message: { type: 'string' }, retryable: { type: 'boolean' } },
      description:
        'When failed. Codes: ingestion uses the lower-cased error code (validation, unsupported_media_type, insufficient_credits, upstream_failed, not_configured, internal), syncs sync_failed or not_found, both cancelled (document or source deleted or re-queued) and not_queued.',
    },
    result: { type: ['object', 'null'], description: 'When completed' },
    emittedAt: { type: 'string', format: 'date-time', description: 'Strictly increasing per job; also the SSE id' },
  },
};

export const jobOperations = [
  op({
    operationId: 'getJob',
    method: 'get',
    path: '/api/jobs/:jobId',
    summary: "A job's current event (members of the job's organization; anyone else 404)",
    tags,
    auth: 'user',
    params: jobParams,
    responses: { '200': { description: 'Current event', schema: jobEventSchema }, ...errors(401, 404) },
  }),
  op({
    operationId: 'streamJobEvents',
    method: 'get',
    path: '/api/jobs/:jobId/events',
    summary:
      "SSE stream of the job's events, with the build rules of spec 4.13: `id:` emittedAt, `event:` progress (non-terminal), done (completed) or error (failed), `data:` the event JSON. On connect the current state is replayed, then events stream until the terminal one, after which the server closes. Reconnect with `Last-Event-ID` (the last emittedAt): the current state is sent only if newer; when the client already has the terminal event the answer is 204 (EventSource then stops reconnecting). A `: ping` comment keeps idle streams open every 15 s.",
    tags,
    auth: 'user',
    params: jobParams,
    query: {
      type: 'object',
      properties: { lastEventId: { type: 'string', maxLength: 64, description: 'For clients that cannot send the Last-Event-ID header' } },
    },
    responses: {
      '200': { description: 'Event stream', contentType: 'text/event-stream', schema: { type: 'string' } },
      '204': { description: 'The client already holds the terminal event' },
      ...errors(401, 404),
    },
  }),
  op({
    operationId: 'listJobWebhookDeliveries',
    method: 'get',
    path: '/api/jobs/:jobId/webhook-deliveries',
    summary: "Webhook deliveries of the job's events with their attempts (beyond docs/contracts.md; members of the job's organization)",
    tags,
    auth: 'user',
    params: jobParams,
    responses: {
      '200': {
        description: 'Deliveries, oldest first',
        schema: {
          type: 'object',
          required: ['deliveries'],
          properties: {
            deliveries: {
              type: 'array',
              items: {
                type: 'object',
                properties: {
                  id: { type: 'string' },
                  url: { type: 'string' },
                  event: { type: 'string', description: 'X-Service-Event' },
                  status: { enum: ['pending', 'delivered', 'failed'] },
                  attempts: { type: 'integer' },
                  lastStatusCode: { type: ['integer', 'null'] },
                  lastError: nullableString,
                  createdAt: { type: 'string' },
                  updatedAt: { type: 'string' },
                  deliveredAt: nullableString,
                },
              },
            },
          },
        },
      },
      ...errors(401, 404),
    },
  }),
];
