import { errors, op, uuid } from '../operation';

/** Contacts (spec 2.10, 3.5, 4.11). The export operations come before `/api/contacts/:id` so they match first. */
const tags = ['contacts'];
const nullableString = { type: ['string', 'null'] } as const;
const STATUSES = ['new', 'engaged', 'qualified', 'closed'] as const;
const CHANNELS = ['whatsapp_business', 'web', 'widget', 'email'] as const;

const filters = {
  search: { type: 'string', maxLength: 200, description: 'Case-insensitive, on name, phone and email' },
  channel: { type: 'string', enum: CHANNELS },
  botId: { type: 'string' },
  status: { type: 'string', enum: STATUSES },
} as const;
const listQuery = {
  type: 'object',
  properties: {
    ...filters,
    limit: { type: 'integer', minimum: 1, default: 20, description: 'Default 20, capped at 50' },
    offset: { type: 'integer', minimum: 0, default: 0 },
  },
} as const;
const idParams = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;

const contactSchema = {
  type: 'object',
  required: ['id', 'organizationId', 'displayName', 'primaryPhone', 'primaryEmail', 'sourceChannel', 'status', 'attributes'],
  properties: {
    id: uuid,
    organizationId: uuid,
    displayName: nullableString,
    displayNameSource: nullableString,
    primaryPhone: nullableString,
    primaryEmail: nullableString,
    sourceChannel: { type: 'string' },
    status: { type: 'string', enum: STATUSES },
    attributes: { type: 'object' },
    firstSeenAt: { type: 'string', format: 'date-time' },
    lastSeenAt: { type: 'string', format: 'date-time' },
  },
} as const;
const listItem = {
  type: 'object',
  required: [
    'id',
    'displayName',
    'primaryPhone',
    'primaryEmail',
    'status',
    'channels',
    'conversationCount',
    'agentCount',
    'lastSeenAt',
    'attributes',
  ],
  properties: {
    id: uuid,
    displayName: nullableString,
    primaryPhone: nullableString,
    primaryEmail: nullableString,
    status: { type: 'string', enum: STATUSES },
    channels: { type: 'array', items: { type: 'string' } },
    conversationCount: { type: 'integer' },
    agentCount: { type: 'integer' },
    lastSeenAt: { type: 'string', format: 'date-time' },
    attributes: { type: 'object' },
  },
} as const;
const historyEntry = {
  type: 'object',
  properties: {
    field_key: { type: 'string' },
    value: nullableString,
    previous_value: nullableString,
    source: { type: 'string', enum: ['tool', 'extraction', 'operator', 'import'] },
    source_ref: nullableString,
    recorded_at: { type: 'string', format: 'date-time' },
    rejected_reason: nullableString,
  },
} as const;
const identity = {
  type: 'object',
  properties: { channel: { type: 'string' }, identifier: { type: 'string' }, verified: { type: 'boolean' } },
} as const;
const conversationItem = {
  type: 'object',
  properties: {
    id: uuid,
    bot_id: uuid,
    bot_name: { type: 'string' },
    platform: { type: 'string' },
    title: nullableString,
    created_at: { type: 'string', format: 'date-time' },
    updated_at: { type: 'string', format: 'date-time' },
  },
} as const;
const csv = {
  description:
    'CSV stream: text/csv; charset=utf-8 with a UTF-8 BOM, attachment; filename=contacts.csv, chunked. Columns: id, organizationId, displayName, displayNameSource, primaryPhone, primaryEmail, sourceChannel, status, firstSeenAt, lastSeenAt, organizationName, conversationCount, agentCount, channels (;-separated), identities (channel:identifier, ;-separated), then one per attribute key sorted. RFC 4180 quoting; a cell starting with = + - @ gets a leading apostrophe. No row cap.',
  contentType: 'text/csv; charset=utf-8',
  schema: { type: 'string' },
} as const;

export const contactOperations = [
  op({
    operationId: 'exportContacts',
    method: 'get',
    path: '/api/contacts/export',
    summary: 'Export contacts as CSV (same filters as the list; organizationId honoured only for platform administrators)',
    tags,
    auth: 'user',
    query: { type: 'object', properties: { ...filters, organizationId: uuid } },
    responses: { '200': csv, ...errors(400, 401, 403, 404) },
  }),
  op({
    operationId: 'exportContactsWithKey',
    method: 'get',
    path: '/v1/contacts/export',
    summary: "Export the key organization's contacts as CSV (scope contacts:read; 403 insufficient_scope otherwise)",
    tags,
    auth: 'apiKey',
    scope: 'contacts:read',
    query: { type: 'object', properties: filters },
    responses: { '200': csv, ...errors(400, 401, 403) },
  }),
  op({
    operationId: 'listContacts',
    method: 'get',
    path: '/api/contacts',
    summary: 'Contacts of the active organization, most recently seen first; total ignores limit and offset',
    tags,
    auth: 'user',
    query: listQuery,
    responses: {
      '200': {
        description: 'Contacts',
        schema: {
          type: 'object',
          required: ['contacts', 'total'],
          properties: { contacts: { type: 'array', items: listItem }, total: { type: 'integer' } },
        },
      },
      ...errors(400, 401, 403),
    },
  }),
  op({
    operationId: 'getContact',
    method: 'get',
    path: '/api/contacts/:id',
    summary: 'A contact with its field history (newest first, applied and rejected writes) and identities',
    tags,
    auth: 'user',
    params: idParams,
    responses: {
      '200': {
        description: 'Contact',
        schema: {
          type: 'object',
          required: ['contact', 'fieldHistory', 'identities'],
          properties: {
            contact: contactSchema,
            fieldHistory: { type: 'array', items: historyEntry },
            identities: { type: 'array', items: identity },
          },
        },
      },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'listContactConversations',
    method: 'get',
    path: '/api/contacts/:id/conversations',
    summary: "A contact's conversations across agents and channels, at most 50, most recently updated first",
    tags,
    auth: 'user',
    params: idParams,
    responses: {
      '200': {
        description: 'Conversations',
        schema: { type: 'object', required: ['conversations'], properties: { conversations: { type: 'array', items: conversationItem } } },
      },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'setContactStatus',
    method: 'patch',
    path: '/api/contacts/:id/status',
    summary: 'Set the status (any of the four, whatever the previous one); appends an operator field-history row',
    tags,
    auth: 'user',
    params: idParams,
    body: { type: 'object', required: ['status'], properties: { status: { type: 'string', enum: STATUSES } } },
    responses: {
      '200': { description: 'Updated', schema: { type: 'object', required: ['contact'], properties: { contact: contactSchema } } },
      ...errors(400, 401, 403, 404),
    },
  }),
  op({
    operationId: 'deleteContact',
    method: 'delete',
    path: '/api/contacts/:id',
    summary: 'Delete a contact with its identities and field history (beyond 4.11); its conversations stay, unlinked',
    tags,
    auth: 'user',
    params: idParams,
    responses: { '204': { description: 'Deleted' }, ...errors(401, 403, 404) },
  }),
];
