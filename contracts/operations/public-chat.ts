/**
 * Anonymous public chat (spec 4.5, 5.4, 6; docs/contracts.md errata and "Public distribution"), plus the operator's
 * side of the presence stream. Every /api/public operation runs on the public lane: no credentials needed; a
 * bearer token, when sent, is verified by the gateway and unlocks restricted agents for members of the agent's
 * organization.
 */
import { CHAT_LIMITS } from '../../core/chat/chat-limits';
import { errors, type JsonSchema, op } from '../operation';
import { TAKEOVER_ANSWER, usageSchema } from '../schemas/chat';

const tags = ['public chat'];
const obj = <const P extends Record<string, unknown>, const R extends readonly (keyof P & string)[] = (keyof P & string)[]>(
  properties: P,
  required?: R,
) => ({ type: 'object', required: required ?? (Object.keys(properties) as (keyof P & string)[]), properties }) as const;
const UUID_PATTERN = '^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$';
const anonymousId = {
  type: 'string',
  pattern: UUID_PATTERN,
  description: 'UUID generated once per visitor and reused (spec 4.5)',
} as const;
const slug = { type: 'string', maxLength: 200 } as const;
const id = { type: 'string', maxLength: 100 } as const;
const slugParams = obj({ slug });
const convParams = obj({ slug, conversationId: id });
const visitorQuery = obj({ anonymousId });
const page = (limit: number) =>
  ({
    type: 'object',
    required: ['anonymousId'],
    properties: {
      anonymousId,
      limit: { type: 'integer', minimum: 1, maximum: 100, default: limit },
      offset: { type: 'integer', minimum: 0, default: 0 },
    },
  }) as const;

const RESTRICTED =
  'Published, distributed agents only. Restricted agents (require_org_membership, or any allowed_group_ids; there is no group model yet, so groups mean "members of the organization") are served only to a verified bearer token of a member of the agent\'s organization; everyone else gets 404, as for an unknown slug, so their existence is not revealed.';
const RATE_LIMITED =
  '429 rate limited with Retry-After (seconds) past the per-anonymousId or per-IP limit (PUBLIC_CHAT_PER_MINUTE, PUBLIC_CHAT_PER_IP_PER_MINUTE, PUBLIC_UPLOADS_PER_MINUTE, PUBLIC_UPLOADS_PER_IP_PER_MINUTE; window 60 s).';

export const attachmentSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'fileType', 'originalFilename', 'fileSizeBytes', 'contentType', 'processingStatus', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    accessToken: {
      type: 'string',
      description: 'Per-upload secret, returned only by the upload (only its hash is stored). Send it with the id in chat attachments.',
    },
    fileType: { enum: ['image', 'pdf', 'text', 'audio', 'video'] },
    originalFilename: { type: 'string' },
    fileSizeBytes: { type: 'integer' },
    contentType: { type: 'string', description: 'Detected MIME type' },
    processingStatus: {
      enum: ['pending', 'processing', 'completed', 'failed'],
      description: 'Text extraction: small text files are extracted during the upload (completed); other files are queued (pending)',
    },
    createdAt: { type: 'string' },
  },
};

const publicAgentSchema: JsonSchema = obj({
  id: { type: 'string', format: 'uuid' },
  name: { type: 'string' },
  description: { type: 'string' },
  slug: { type: 'string' },
  model: { type: 'string' },
  streamingEnabled: { type: 'boolean' },
  fileUploadsEnabled: { type: 'boolean' },
  voiceEnabled: { type: 'boolean' },
  multimodalConfig: { type: ['object', 'null'] },
  modelInputModalities: { type: 'array', items: { type: 'string' } },
  restricted: { type: 'boolean', description: 'Served only to members of the organization' },
  welcome: {
    type: ['object', 'null'],
    properties: {
      mode: { enum: ['fixed', 'generated'] },
      message: { type: ['string', 'null'], description: 'Fixed welcome rendered without conversation variables; null for generated' },
    },
  },
  publishedAt: { type: ['string', 'null'] },
  theme: {
    type: 'object',
    additionalProperties: { type: 'string' },
    description:
      "The widget channel's config.theme, applied by the widget ({} without one). Keys the widget reads: primaryColor (bubble, header, own messages, send button), textColor (text on the primary colour), backgroundColor (panel), position (right or left)",
  },
});

const publicConversationSchema: JsonSchema = obj({
  id: { type: 'string', format: 'uuid' },
  title: { type: ['string', 'null'], description: 'The first chat message until renamed' },
  messageCount: { type: 'integer' },
  createdAt: { type: 'string' },
  updatedAt: { type: 'string' },
});

const publicMessageSchema: JsonSchema = {
  type: 'object',
  required: ['id', 'role', 'content', 'createdAt'],
  properties: {
    id: { type: 'string', format: 'uuid' },
    role: { enum: ['user', 'assistant', 'system'] },
    content: { type: 'string' },
    createdAt: { type: 'string' },
    attachments: { type: 'array', items: obj({ id: { type: 'string' }, filename: { type: 'string' }, contentType: { type: 'string' } }) },
    operator: {
      type: 'object',
      properties: { displayName: { type: 'string' } },
      description: 'Present on messages a human operator wrote',
    },
  },
};

const publicChatBody = {
  type: 'object',
  required: ['message', 'conversationId', 'anonymousId'],
  properties: {
    message: { type: 'string', minLength: 1, maxLength: CHAT_LIMITS.messageChars },
    conversationId: { ...id, description: "From POST .../conversations; another visitor's or agent's: 404" },
    anonymousId,
    stream: { type: 'boolean', default: false, description: 'SSE answer when the agent has streamingEnabled (else JSON)' },
    attachments: {
      type: 'array',
      maxItems: CHAT_LIMITS.attachments,
      items: obj({ id: { type: 'string', minLength: 1, maxLength: 100 }, accessToken: { type: 'string', minLength: 1, maxLength: 500 } }),
      description:
        "Uploaded attachments of this visitor; 403 when the agent has file uploads disabled; unknown id, wrong token or another visitor's: 400; text still being extracted: 409 (retry shortly)",
    },
  },
} as const;

const PRESENCE_DESCRIPTION =
  'SSE (text/event-stream) of operator-presence events for the conversation: one `data: {type, conversationId, operator: {displayName}, emittedAt, message?, messageId?, typing?}` frame per event, with type one of operator.joined, operator.left, operator.typing (typing), operator.message (message, messageId), conversation.takeover, conversation.released. A `: ping` comment every 20 seconds keeps proxies from closing the stream. Events published while disconnected are not replayed (operator messages are in the conversation messages).';

const operatorEventBody = {
  type: 'object',
  required: ['type'],
  properties: {
    type: {
      enum: ['operator.joined', 'operator.left', 'operator.typing', 'operator.message', 'conversation.takeover', 'conversation.released'],
    },
    message: {
      type: 'string',
      minLength: 1,
      maxLength: 10000,
      description: "Required for operator.message; saved to the conversation as an assistant message with the operator's name",
    },
    typing: { type: 'boolean', default: true, description: 'operator.typing: false clears the indicator' },
  },
} as const;

export const publicChatOperations = [
  op({
    operationId: 'getPublicAgent',
    method: 'get',
    path: '/api/public/agents/:slug',
    summary: `The public view of a distributed agent (optional bearer token). ${RESTRICTED}`,
    tags,
    auth: 'public',
    params: slugParams,
    responses: { '200': { description: 'Public agent', schema: publicAgentSchema }, ...errors(401, 404) },
  }),
  op({
    operationId: 'createPublicConversation',
    method: 'post',
    path: '/api/public/agents/:slug/conversations',
    summary: `Start a conversation for an anonymous visitor; welcomeMessage as for authenticated conversations (null without a welcome section; generated welcomes are billed to the agent's organization). Counts against the chat rate limits: ${RATE_LIMITED}`,
    tags,
    auth: 'public',
    params: slugParams,
    body: visitorQuery,
    responses: {
      '200': {
        description: 'Started',
        schema: obj({
          success: { const: true },
          data: obj({ conversationId: { type: 'string', format: 'uuid' }, welcomeMessage: { type: ['string', 'null'] } }),
        }),
      },
      ...errors(400, 401, 402, 404, 429, 503),
    },
  }),
  op({
    operationId: 'listPublicConversations',
    method: 'get',
    path: '/api/public/agents/:slug/conversations',
    summary: "The visitor's conversations with this agent, newest activity first",
    tags,
    auth: 'public',
    params: slugParams,
    query: page(20),
    responses: {
      '200': {
        description: 'Conversations',
        schema: obj({
          conversations: { type: 'array', items: publicConversationSchema },
          pagination: obj({
            limit: { type: 'integer' },
            offset: { type: 'integer' },
            total: { type: 'integer' },
            hasMore: { type: 'boolean' },
          }),
        }),
      },
      ...errors(400, 401, 404),
    },
  }),
  op({
    operationId: 'listPublicConversationMessages',
    method: 'get',
    path: '/api/public/agents/:slug/conversations/:conversationId/messages',
    summary: "Messages of one of the visitor's conversations, oldest first (no sources or costs); another visitor's: 404",
    tags,
    auth: 'public',
    params: convParams,
    query: page(50),
    responses: {
      '200': { description: 'Messages', schema: obj({ messages: { type: 'array', items: publicMessageSchema } }) },
      ...errors(400, 401, 404),
    },
  }),
  op({
    operationId: 'renamePublicConversation',
    method: 'patch',
    path: '/api/public/agents/:slug/conversations/:conversationId',
    summary: "Rename one of the visitor's conversations (title 1-80 characters)",
    tags,
    auth: 'public',
    params: convParams,
    body: obj({ anonymousId, title: { type: 'string', minLength: 1, maxLength: 80 } }),
    responses: { '200': { description: 'Renamed', schema: obj({ conversation: publicConversationSchema }) }, ...errors(400, 401, 404) },
  }),
  op({
    operationId: 'deletePublicConversation',
    method: 'delete',
    path: '/api/public/agents/:slug/conversations/:conversationId',
    summary: "Delete one of the visitor's conversations (hidden from the visitor; kept by the organization)",
    tags,
    auth: 'public',
    params: convParams,
    query: visitorQuery,
    responses: { '200': { description: 'Deleted', schema: obj({ success: { const: true } }) }, ...errors(400, 401, 404) },
  }),
  op({
    operationId: 'publicChat',
    method: 'post',
    path: '/api/public/agents/:slug/chat',
    summary: `Chat as an anonymous visitor: the same pipeline as authenticated chat, billed to the agent's organization (paid model without credits: 402 insufficient_credits). ${RATE_LIMITED}`,
    tags,
    auth: 'public',
    params: slugParams,
    body: publicChatBody,
    responses: {
      '200': {
        description:
          'JSON {response, conversationId, usage}, or with stream true and streamingEnabled an SSE stream: `data: {"token": "..."}` per piece, then `data: {"done": true, "usage": {...}, "conversationId", "operatorTakeover"?}` (no sources on the public surface; operatorTakeover as in the JSON answer); an error after the stream started is a final `data: {"error", "message", "code"}` frame.',
        schema: {
          ...obj({ response: { type: 'string' }, conversationId: { type: 'string', format: 'uuid' }, usage: usageSchema }),
          properties: {
            response: { type: 'string' },
            conversationId: { type: 'string', format: 'uuid' },
            usage: usageSchema,
            operatorTakeover: { type: 'boolean', enum: [true], description: TAKEOVER_ANSWER },
          },
        },
      },
      ...errors(400, 401, 402, 403, 404, 409, 429, 502, 503),
    },
  }),
  op({
    operationId: 'uploadPublicAttachment',
    method: 'post',
    path: '/api/public/agents/:slug/attachments',
    summary: `Upload one file (multipart/form-data, part \`file\`) as an attachment: images, PDF, text, audio or video. 403 when file uploads are disabled; 413 past PUBLIC_ATTACHMENT_MAX_BYTES; 415 when the bytes do not match the declared type or the kind is not allowed. ${RATE_LIMITED}`,
    tags,
    auth: 'public',
    params: slugParams,
    query: visitorQuery,
    body: 'multipart',
    responses: {
      '200': { description: 'Stored', schema: obj({ attachment: attachmentSchema }) },
      ...errors(400, 401, 403, 404, 413, 415, 429),
    },
  }),
  op({
    operationId: 'getPublicAttachment',
    method: 'get',
    path: '/api/public/agents/:slug/attachments/:attachmentId',
    summary:
      "One of the visitor's attachments (without its token), to follow processingStatus. Send the access token in the X-Attachment-Token header; wrong token, visitor or agent: 404",
    tags,
    auth: 'public',
    params: obj({ slug, attachmentId: id }),
    query: visitorQuery,
    responses: { '200': { description: 'Attachment', schema: obj({ attachment: attachmentSchema }) }, ...errors(400, 401, 404) },
  }),
  op({
    operationId: 'publicConversationEvents',
    method: 'get',
    path: '/api/public/agents/:slug/conversations/:conversationId/events',
    summary:
      "Operator-presence events of one of the visitor's conversations (SSE); another visitor's: 404. At most PUBLIC_PRESENCE_STREAMS_PER_VISITOR (5) streams open per anonymousId and PUBLIC_PRESENCE_STREAMS_PER_IP (50) per client IP: 429 rate limited (Retry-After) until one closes",
    tags,
    auth: 'public',
    params: convParams,
    query: visitorQuery,
    responses: {
      '200': { description: PRESENCE_DESCRIPTION, contentType: 'text/event-stream', schema: { type: 'string' } },
      ...errors(400, 401, 404, 429),
    },
  }),
  op({
    operationId: 'publishOperatorEvent',
    method: 'post',
    path: '/api/bots/:id/conversations/:convId/operator-events',
    summary:
      'A human operator (permission edit on the agent; a viewer gets 403) sends a presence event to a conversation of the agent; visitors receive it on GET /api/public/agents/:slug/conversations/:conversationId/events. conversation.takeover pauses the agent in that conversation on every surface (public lane, widget, channels, authenticated chat): visitor messages are saved for the operator (heldForOperator on the inbox messages) with no model call, no billing event and no channel reply, and chat answers carry operatorTakeover: true; conversation.released hands it back to the agent. The operator inbox item shows the takeover.',
    tags,
    auth: 'user',
    params: obj({ id, convId: id }),
    body: operatorEventBody,
    responses: { '202': { description: 'Published', schema: obj({ event: { type: 'object' } }) }, ...errors(400, 401, 403, 404) },
  }),
];
