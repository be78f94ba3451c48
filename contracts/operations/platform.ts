import { errors, op, pageQuery } from '../operation';

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
    tags: ['docs'],
    auth: 'open',
    responses: { '200': { description: 'HTML page', contentType: 'text/html' } },
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
    tags: ['audit'],
    auth: 'user',
    query: { ...pageQuery(50), properties: { ...pageQuery(50).properties, action: { type: 'string' } } },
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
