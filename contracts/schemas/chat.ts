import { CHAT_LIMITS } from '../../core/chat/chat-limits';
import type { JsonSchema } from '../operation';

const obj = <const P extends Record<string, unknown>, const R extends readonly (keyof P & string)[] = (keyof P & string)[]>(
  properties: P,
  required?: R,
) => ({ type: 'object', required: required ?? (Object.keys(properties) as (keyof P & string)[]), properties }) as const;
const variables = {
  type: 'object',
  maxProperties: CHAT_LIMITS.variables,
  description: 'Template variables, name -> JSON value; rendered in prompts as {{user.name}}',
} as const;

/** What a client gets for a message written while an operator has the conversation (issue 15). */
export const TAKEOVER_ANSWER =
  'Present (true) only when an operator has taken the conversation over (operator event conversation.takeover): the message was saved for the operator, the agent did not answer (empty response, no sources, zero usage, no billing event; messageId is the saved user message) until conversation.released. In a stream it is on the done frame, with no token frames.';

/** Body of chat and preview-chat (spec 4.4 and 8). */
export const chatBody = {
  type: 'object',
  required: ['message'],
  properties: {
    message: { type: 'string', minLength: 1, maxLength: CHAT_LIMITS.messageChars },
    conversationId: {
      type: 'string',
      maxLength: 100,
      description: 'Continue this conversation (a new one is created when omitted); another agent or organization: 404',
    },
    stream: { type: 'boolean', default: false, description: 'SSE answer, only when the agent has streamingEnabled (else JSON)' },
    variables: { ...variables, description: 'Merged into the conversation variables before the prompt is rendered' },
    attachments: {
      type: 'array',
      maxItems: CHAT_LIMITS.attachments,
      items: obj({ id: { type: 'string', minLength: 1, maxLength: 100 }, accessToken: { type: 'string', minLength: 1, maxLength: 500 } }),
      description:
        'Uploaded attachments (their text is extracted into the context); the agent needs fileUploadsEnabled; unknown id or wrong token: 400',
    },
    includeVoice: {
      type: 'boolean',
      default: false,
      description: 'Adds voice {audioBase64, mimeType}; needs voiceEnabled and a configured speech provider (else 400)',
    },
    systemPrompt: {
      type: 'string',
      maxLength: CHAT_LIMITS.systemPromptChars,
      description: 'Per-message system prompt override (rendered with the variables)',
    },
  },
} as const;

export const sourceSchema: JsonSchema = obj({
  content: { type: 'string' },
  score: { type: 'number', minimum: 0, maximum: 1 },
  documentTitle: { type: 'string' },
  knowledgeBaseId: { type: 'string' },
});

export const usageSchema: JsonSchema = obj({
  promptTokens: { type: 'integer' },
  completionTokens: { type: 'integer' },
  totalTokens: { type: 'integer' },
  cost: { type: 'number', description: 'USD charged to the wallet (provider cost times the margin); 0 for free models' },
});

export const chatResponse = {
  type: 'object',
  required: ['response', 'conversationId', 'messageId', 'sources', 'usage'],
  properties: {
    response: { type: 'string' },
    conversationId: { type: 'string', format: 'uuid' },
    messageId: { type: 'string', format: 'uuid', description: 'The assistant message' },
    sources: { type: 'array', items: sourceSchema },
    usage: usageSchema,
    voice: {
      type: ['object', 'null'],
      properties: { audioBase64: { type: 'string' }, mimeType: { type: 'string' } },
      description: 'With includeVoice',
    },
    operatorTakeover: {
      type: 'boolean',
      enum: [true],
      description: TAKEOVER_ANSWER,
    },
  },
} as const;

export const CHAT_SSE_DESCRIPTION =
  'JSON answer, or with stream true and streamingEnabled an SSE stream (text/event-stream): `data: {"token": "..."}` per text piece, then `data: {"done": true, "sources": [...], "usage": {...}, "conversationId", "messageId", "operatorTakeover"?}`; an error after the stream started arrives as a final `data: {"error", "message", "code"}` frame. A client that disconnects stops generation and is billed for the tokens produced.';

export const conversationSchema: JsonSchema = obj({
  id: { type: 'string', format: 'uuid' },
  botId: { type: 'string', format: 'uuid' },
  userId: { type: ['string', 'null'] },
  title: { type: ['string', 'null'] },
  platform: { type: 'string' },
  messageCount: { type: 'integer' },
  variables: { type: 'object', description: 'Non-sensitive variables only' },
  sensitiveVariableNames: {
    type: 'array',
    items: { type: 'string' },
    description: 'Names of sensitive variables (values are never returned)',
  },
  createdAt: { type: 'string' },
  updatedAt: { type: 'string' },
});

export const messageSchema: JsonSchema = obj({
  id: { type: 'string', format: 'uuid' },
  role: { enum: ['user', 'assistant', 'system'] },
  content: { type: 'string' },
  sources: { type: 'array', items: sourceSchema },
  usage: usageSchema,
  model: { type: ['string', 'null'] },
  createdAt: { type: 'string' },
});

/** A conversation's current takeover (issue 15). */
export const takeoverSchema = {
  type: ['object', 'null'],
  required: ['operator', 'since'],
  properties: { operator: { type: 'object', properties: { displayName: { type: 'string' } } }, since: { type: 'string' } },
  description:
    'Set while an operator has taken the conversation over (the agent does not answer; visitor messages wait for the operator); null otherwise',
} as const;

/** An operator inbox item (docs/contracts.md "Operator inbox"). */
export const inboxConversationSchema: JsonSchema = obj({
  id: { type: 'string', format: 'uuid' },
  botId: { type: 'string', format: 'uuid' },
  platform: { type: 'string' },
  contactId: { type: ['string', 'null'] },
  title: { type: ['string', 'null'] },
  messageCount: { type: 'integer' },
  takeover: takeoverSchema,
  createdAt: { type: 'string' },
  updatedAt: { type: 'string' },
});

export const inboxMessageSchema: JsonSchema = {
  ...messageSchema,
  properties: {
    ...(messageSchema.properties as Record<string, unknown>),
    operator: {
      type: 'object',
      properties: { displayName: { type: 'string' } },
      description: 'Present on messages a human operator wrote',
    },
    heldForOperator: {
      type: 'boolean',
      enum: [true],
      description: 'Present (true) on a user message written during a takeover: the agent did not answer it',
    },
  },
};

export const newConversationBody = {
  type: 'object',
  properties: {
    variables,
    context_token: {
      type: 'string',
      maxLength: 100000,
      description:
        'From POST /api/bots/:id/context-token; its variables become sensitive variables. Altered, expired or for another agent: 400',
    },
  },
} as const;

export const variablesBody = {
  type: 'object',
  required: ['variables'],
  properties: {
    variables: { ...variables, description: 'name -> value, merged into the conversation store; null removes a variable' },
    sensitive: {
      type: 'array',
      maxItems: 100,
      uniqueItems: true,
      items: { type: 'string' },
      description: 'Names (keys of variables) to store as sensitive: usable in prompts, never returned',
    },
  },
} as const;

export const variablesResponse: JsonSchema = obj({
  variables: { type: 'object', description: 'Non-sensitive variables' },
  sensitive: { type: 'array', items: { type: 'string' }, description: 'Names of the sensitive variables' },
});

export const contextTokenBody = {
  type: 'object',
  required: ['variables'],
  properties: {
    variables: { ...variables, description: 'Sensitive variables the token carries (encrypted: the holder cannot read them)' },
    expiresInSeconds: { type: 'integer', minimum: 1, maximum: 604800, default: 3600 },
  },
} as const;

export const contextTokenResponse: JsonSchema = obj({
  contextToken: { type: 'string' },
  expiresAt: { type: 'string' },
  variableNames: { type: 'array', items: { type: 'string' } },
});
