import { errors, op } from '../operation';
import * as s from '../schemas/chat';

const tags = ['chat'];
const obj = <const P extends Record<string, unknown>, const R extends readonly (keyof P & string)[] = (keyof P & string)[]>(
  properties: P,
  required?: R,
) => ({ type: 'object', required: required ?? (Object.keys(properties) as (keyof P & string)[]), properties }) as const;
const id = { type: 'string', maxLength: 100 };
const convParams = obj({ id, convId: id });
const chatResponses = {
  '200': { description: s.CHAT_SSE_DESCRIPTION, schema: s.chatResponse },
  ...errors(400, 401, 402, 403, 404, 429, 502, 503),
};

export const chatOperations = [
  op({
    operationId: 'chatWithAgent',
    method: 'post',
    path: '/api/bots/:id/chat',
    summary:
      'Chat with an agent (permission use) using its live prompt configuration. Pipeline: validate, extract attachment text, merge variables, retrieve from every linked knowledge base, document map, graph entities, system prompt, model, save messages, bill (kind chat). Paid model without credits: 402 insufficient_credits before the model is called; provider credit or token limit: provider_limit_reached.',
    tags,
    auth: 'user',
    params: obj({ id }),
    body: s.chatBody,
    responses: chatResponses,
  }),
  op({
    operationId: 'previewChat',
    method: 'post',
    path: '/api/bots/:id/preview-chat',
    summary: 'Same as chat, with the draft prompt configuration (conversations it starts have platform preview)',
    tags,
    auth: 'user',
    params: obj({ id }),
    body: s.chatBody,
    responses: chatResponses,
  }),
  op({
    operationId: 'createConversation',
    method: 'post',
    path: '/api/bots/:id/conversations',
    summary:
      'Start a conversation (permission use) with variables and optionally a context token (sensitive variables). welcomeMessage: null without a welcome section; fixed: the rendered content; generated: the model output (billed as welcome_message).',
    tags,
    auth: 'user',
    params: obj({ id }),
    body: s.newConversationBody,
    responses: {
      '201': {
        description: 'Created',
        schema: obj({
          success: { const: true },
          data: obj({ conversationId: { type: 'string', format: 'uuid' }, welcomeMessage: { type: ['string', 'null'] } }),
        }),
      },
      ...errors(400, 401, 402, 403, 404, 503),
    },
  }),
  op({
    operationId: 'listConversations',
    method: 'get',
    path: '/api/conversations',
    summary:
      "Conversations of the active organization, newest activity first. userId defaults to the caller; another member's needs owner or admin (403).",
    tags,
    auth: 'user',
    query: {
      type: 'object',
      properties: {
        botId: { type: 'string', maxLength: 100 },
        userId: { type: 'string', maxLength: 100 },
        platform: { type: 'string', maxLength: 50, description: 'web, api, preview...' },
        limit: { type: 'integer', minimum: 1, maximum: 200, default: 50 },
        offset: { type: 'integer', minimum: 0, default: 0 },
      },
    },
    responses: {
      '200': {
        description: 'Conversations',
        schema: obj({
          conversations: { type: 'array', items: s.conversationSchema },
          pagination: obj({
            limit: { type: 'integer' },
            offset: { type: 'integer' },
            total: { type: 'integer' },
            hasMore: { type: 'boolean' },
          }),
        }),
      },
      ...errors(400, 401, 403),
    },
  }),
  op({
    operationId: 'getConversation',
    method: 'get',
    path: '/api/conversations/:id',
    summary:
      "A conversation with its metadata (own conversations; owners and admins: any of the organization's); sensitive variables are never returned",
    tags,
    auth: 'user',
    params: obj({ id }),
    responses: { '200': { description: 'Conversation', schema: obj({ conversation: s.conversationSchema }) }, ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'listConversationMessages',
    method: 'get',
    path: '/api/conversations/:id/messages',
    summary: 'Every message of the conversation, oldest first, with sources and usage',
    tags,
    auth: 'user',
    params: obj({ id }),
    responses: {
      '200': { description: 'Messages', schema: obj({ messages: { type: 'array', items: s.messageSchema } }) },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'listAgentConversations',
    method: 'get',
    path: '/api/bots/:id/conversations',
    summary:
      'Operator inbox (docs/contracts.md "Operator inbox"): every conversation of the agent whatever its platform (public visitors, channels, API), most recently updated first; needs edit on the agent (403 otherwise)',
    tags,
    auth: 'user',
    params: obj({ id }),
    query: {
      type: 'object',
      properties: {
        platform: { type: 'string', maxLength: 50, description: 'web, widget, email, whatsapp_business, api...' },
        contactId: { type: 'string', maxLength: 100 },
        updatedSince: { type: 'string', format: 'date-time', description: 'ISO 8601 date-time: conversations updated at or after it' },
        limit: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
        offset: { type: 'integer', minimum: 0, maximum: 2_147_483_647, default: 0 },
      },
    },
    responses: {
      '200': {
        description: 'Conversations',
        schema: obj({ conversations: { type: 'array', items: s.inboxConversationSchema }, total: { type: 'integer' } }),
      },
      ...errors(400, 401, 403, 404),
    },
  }),
  op({
    operationId: 'listAgentConversationMessages',
    method: 'get',
    path: '/api/bots/:id/conversations/:convId/messages',
    summary:
      "Every message of one of the agent's conversations, oldest first (needs edit on the agent); messages an operator wrote carry operator {displayName}, visitor messages written during a takeover heldForOperator; takeover is the conversation's current takeover (null when the agent answers)",
    tags,
    auth: 'user',
    params: convParams,
    responses: {
      '200': {
        description: 'Messages',
        schema: obj({ messages: { type: 'array', items: s.inboxMessageSchema }, takeover: s.takeoverSchema }),
      },
      ...errors(401, 403, 404),
    },
  }),
  op({
    operationId: 'setConversationVariables',
    method: 'post',
    path: '/api/bots/:id/conversations/:convId/variables',
    summary:
      'Merge server-side variables into the conversation: {variables: {name: value}, sensitive: ["name"]}. Sensitive variables are usable in prompts ({{user.name}}) and never returned; null removes a variable (permission use). ' +
      'Variables set by a signed context token at conversation creation are read-only: writing or removing one is 409 Conflict.',
    tags,
    auth: 'user',
    params: convParams,
    body: s.variablesBody,
    responses: { '200': { description: 'Variables after the merge', schema: s.variablesResponse }, ...errors(400, 401, 403, 404, 409) },
  }),
  op({
    operationId: 'getConversationVariables',
    method: 'get',
    path: '/api/bots/:id/conversations/:convId/variables',
    summary: 'The conversation variables without the sensitive ones (their names only)',
    tags,
    auth: 'user',
    params: convParams,
    responses: { '200': { description: 'Variables', schema: s.variablesResponse }, ...errors(401, 403, 404) },
  }),
  op({
    operationId: 'createContextToken',
    method: 'post',
    path: '/api/bots/:id/context-token',
    summary:
      'A signed (HMAC-SHA256), encrypted (AES-256-GCM) token carrying sensitive variables for this agent, with an expiry; pass it as context_token when creating a conversation (altered or expired: 400).',
    tags,
    auth: 'user',
    params: obj({ id }),
    body: s.contextTokenBody,
    responses: { '200': { description: 'Token', schema: s.contextTokenResponse }, ...errors(400, 401, 403, 404) },
  }),
];
