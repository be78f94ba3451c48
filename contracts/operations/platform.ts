import { errors, op, pageQuery } from '../operation';

/** The static files of the /api/docs page (served from the swagger-ui-dist package, plus its initializer). */
export const DOCS_ASSETS = ['swagger-ui.css', 'swagger-ui-bundle.js', 'init.js', 'favicon-32x32.png'] as const;

export const platformOperations = [
  op({
    operationId: 'openapi',
    method: 'get',
    path: '/api/openapi.json',
    summary: 'This OpenAPI 3.1 document',
    tags: ['docs'],
    auth: 'open',
    responses: { '200': { description: 'OpenAPI document', schema: { type: 'object' } } },
  }),
  op({
    operationId: 'docs',
    method: 'get',
    path: '/api/docs',
    summary: 'Readable API documentation',
    description: 'The API reference (Swagger UI, served offline by the platform) rendering /api/openapi.json.',
    tags: ['docs'],
    auth: 'open',
    responses: {
      '200': {
        description: 'HTML page',
        contentType: 'text/html',
        example: '<!doctype html><html lang="en">…<main id="reference">…</main>…</html>',
      },
    },
  }),
  op({
    operationId: 'docsAsset',
    method: 'get',
    path: '/api/docs/assets/:file',
    summary: 'A static file of the API reference page',
    description: 'Scripts, styles and icon of /api/docs, from the swagger-ui-dist package (no CDN).',
    tags: ['docs'],
    auth: 'open',
    params: { type: 'object', required: ['file'], properties: { file: { enum: [...DOCS_ASSETS] } } },
    responses: { '200': { description: 'The file', contentType: 'application/octet-stream' }, ...errors(400) },
  }),
  op({
    operationId: 'wallet',
    method: 'get',
    path: '/api/billing/wallet',
    summary: 'Credit balance and recent billing events of the active organization (owners and admins; 403 for other roles)',
    tags: ['billing'],
    auth: 'user',
    responses: {
      '200': {
        description: 'Wallet',
        schema: {
          type: 'object',
          required: ['balance', 'currency', 'wallet', 'events'],
          properties: { balance: { type: 'number' }, currency: { const: 'USD' }, wallet: { type: 'object' }, events: { type: 'array' } },
        },
      },
      ...errors(403),
    },
  }),
  op({
    operationId: 'topUpCredits',
    method: 'post',
    path: '/api/admin/organizations/:id/credits',
    summary: "Top up an organization's credits (superadmin)",
    tags: ['billing', 'admin'],
    auth: 'user',
    params: { type: 'object', required: ['id'], properties: { id: { type: 'string', format: 'uuid' } } },
    body: { type: 'object', required: ['amountUsd'], properties: { amountUsd: { type: 'number', exclusiveMinimum: 0, maximum: 1000000 } } },
    responses: {
      '200': { description: 'New balance', schema: { type: 'object', properties: { wallet: { type: 'object' } } } },
      ...errors(400, 403, 404),
    },
  }),
  op({
    operationId: 'listAuditLog',
    method: 'get',
    path: '/api/audit-logs',
    summary: 'Audit entries of the active organization, newest first (owners and admins)',
    description:
      'Every state change an administrator looks for: agents (agent.create, agent.update, agent.submit_review, agent.approve, agent.reject, agent.publish, agent.publish_without_review, agent.distribution_publish, agent.delete), knowledge bases and links, documents (document.upload, document.delete), sources (source.create, source.delete), API keys (api_key.create, api_key.revoke), invitations (invitation.create, invitation.revoke, invitation.accept), members (member.role_change, member.remove), groups, prompt versions and credits (billing.top_up). Filter by action (exact, or a family such as `agent.*`), actorId, resourceType, resourceId and a time range (from, to: ISO 8601, inclusive); paged with limit and offset.',
    tags: ['audit'],
    auth: 'user',
    query: {
      ...pageQuery(50),
      properties: {
        ...pageQuery(50).properties,
        action: { type: 'string', maxLength: 100 },
        actorId: { type: 'string', format: 'uuid' },
        resourceType: { type: 'string', maxLength: 50 },
        resourceId: { type: 'string', maxLength: 100 },
        from: { type: 'string', format: 'date-time' },
        to: { type: 'string', format: 'date-time' },
      },
    },
    responses: {
      '200': {
        description: 'Entries',
        schema: {
          type: 'object',
          properties: { entries: { type: 'array' }, total: { type: 'integer' }, limit: { type: 'integer' }, offset: { type: 'integer' } },
        },
      },
      ...errors(403),
    },
  }),
];
