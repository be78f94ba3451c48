import type { PluginDescriptor } from '../../core/plugin-contract/plugin-manifest';
import { errors, op, pageQuery, uuid } from '../operation';

/** Agent channels and their public inbound webhook (docs/contracts.md "Channels"); the types come from the plugin catalogue. */
const tags = ['channels'];
const agentParams = { type: 'object', required: ['id'], properties: { id: { type: 'string' } } } as const;
const channelParams = {
  type: 'object',
  required: ['id', 'channelId'],
  properties: { id: { type: 'string' }, channelId: { type: 'string' } },
} as const;
const inboundParams = { type: 'object', required: ['channelId'], properties: { channelId: { type: 'string' } } } as const;
const label = { type: 'string', minLength: 1, maxLength: 200 } as const;
const freeObject = { type: 'object' } as const;

const channelSchema = {
  type: 'object',
  required: ['id', 'botId', 'type', 'label', 'isActive', 'config', 'createdAt', 'inboundUrl'],
  properties: {
    id: uuid,
    botId: uuid,
    type: { type: 'string' },
    label: { type: 'string' },
    isActive: { type: 'boolean' },
    config: { type: 'object' },
    createdAt: { type: 'string', format: 'date-time' },
    inboundUrl: { type: 'string' },
  },
} as const;
const one = { type: 'object', required: ['channel'], properties: { channel: channelSchema } } as const;
const nullableTime = { type: ['string', 'null'], format: 'date-time' } as const;
const deliverySchema = {
  type: 'object',
  required: ['id', 'conversationId', 'status', 'attempts', 'lastError', 'createdAt', 'sentAt'],
  properties: {
    id: uuid,
    conversationId: uuid,
    status: { type: 'string', enum: ['pending', 'sent', 'failed'] },
    attempts: { type: 'integer', minimum: 0, description: 'Sends tried so far (5 at most)' },
    lastError: {
      type: ['string', 'null'],
      description: 'The error of the latest failed attempt; kept once a later attempt succeeded (attempts > 1 then says why it was late)',
    },
    createdAt: { type: 'string', format: 'date-time' },
    sentAt: { ...nullableTime, description: 'When the provider accepted it; null until then' },
  },
} as const;

/** Per-type config rules, for the OpenAPI reader (validation itself runs through the plugin registry). */
const typeRules = (channels: readonly PluginDescriptor[]) =>
  channels.map((c) => `${c.type}: ${c.description}; config ${JSON.stringify(c.optionsSchema.properties ?? {})}`).join(' | ');

export const channelOperations = (channels: readonly PluginDescriptor[]) => {
  const types = channels.map((c) => c.type);
  return [
    op({
      operationId: 'createChannel',
      method: 'post',
      path: '/api/bots/:id/channels',
      summary: `Connect the agent to a channel (needs edit on the agent). config and secrets are validated by the channel type's plugin; secrets are write-only (never returned). Email: an address another active channel serves is 409 address_taken; with EMAIL_INBOUND_DOMAIN, no config.address gets a generated one there (active at once); a chosen address outside that domain is created inactive and a code is mailed to it (POST .../verify). Types: ${typeRules(channels)}`,
      tags,
      auth: 'user',
      params: agentParams,
      body: {
        type: 'object',
        required: ['type'],
        additionalProperties: false,
        properties: { type: { type: 'string', enum: types }, label, config: freeObject, secrets: freeObject },
      },
      responses: { '201': { description: 'Created', schema: one }, ...errors(400, 401, 403, 404, 409) },
    }),
    op({
      operationId: 'listChannels',
      method: 'get',
      path: '/api/bots/:id/channels',
      summary: "The agent's channels, oldest first (needs edit on the agent)",
      tags,
      auth: 'user',
      params: agentParams,
      responses: {
        '200': {
          description: 'Channels',
          schema: { type: 'object', required: ['channels'], properties: { channels: { type: 'array', items: channelSchema } } },
        },
        ...errors(401, 403, 404),
      },
    }),
    op({
      operationId: 'updateChannel',
      method: 'patch',
      path: '/api/bots/:id/channels/:channelId',
      summary:
        'Change label, isActive, config (replaced) or secrets (merged over the stored ones). Email: a new address outside EMAIL_INBOUND_DOMAIN deactivates the channel and mails a code (so does setting the pending address again); isActive true on an unverified address 409; an address another active channel serves 409 address_taken',
      tags,
      auth: 'user',
      params: channelParams,
      body: {
        type: 'object',
        additionalProperties: false,
        properties: { label, isActive: { type: 'boolean' }, config: freeObject, secrets: freeObject },
      },
      responses: { '200': { description: 'Updated', schema: one }, ...errors(400, 401, 403, 404, 409) },
    }),
    op({
      operationId: 'verifyChannel',
      method: 'post',
      path: '/api/bots/:id/channels/:channelId/verify',
      summary:
        'Activates an email channel whose chosen address waits for verification, with the code mailed to that address (needs edit on the agent). Wrong or expired code 400; after 5 wrong codes 429 (set the address again for a new code); no verification pending 409; the address taken by another channel meanwhile 409 address_taken',
      tags,
      auth: 'user',
      params: channelParams,
      body: {
        type: 'object',
        required: ['code'],
        additionalProperties: false,
        properties: { code: { type: 'string', minLength: 1, maxLength: 20 } },
      },
      responses: { '200': { description: 'Verified and active', schema: one }, ...errors(400, 401, 403, 404, 409, 429) },
    }),
    op({
      operationId: 'deleteChannel',
      method: 'delete',
      path: '/api/bots/:id/channels/:channelId',
      summary: 'Remove a channel; its conversations stay',
      tags,
      auth: 'user',
      params: channelParams,
      responses: { '204': { description: 'Deleted' }, ...errors(401, 403, 404) },
    }),
    op({
      operationId: 'listChannelDeliveries',
      method: 'get',
      path: '/api/bots/:id/channels/:channelId/deliveries',
      summary:
        "The channel's replies (agent answers and operator messages) and their delivery, newest first (needs edit on the agent). A reply is sent only once the provider accepted it; a failed send is retried with exponential backoff (CHANNEL_RETRY_BACKOFF_MS, default 5 s), 5 attempts, then failed",
      tags,
      auth: 'user',
      params: channelParams,
      query: pageQuery(50),
      responses: {
        '200': {
          description: 'Deliveries',
          schema: { type: 'object', required: ['deliveries'], properties: { deliveries: { type: 'array', items: deliverySchema } } },
        },
        ...errors(400, 401, 403, 404),
      },
    }),
    op({
      operationId: 'channelInboundVerify',
      method: 'get',
      path: '/api/public/channels/:channelId/inbound',
      summary:
        "A channel's verification request (WhatsApp: hub.mode=subscribe, hub.verify_token, hub.challenge → the challenge as text/plain). Unknown or inactive channel (its agent deleted) 404; failed verification 401",
      tags,
      auth: 'public',
      params: inboundParams,
      responses: { '200': { description: 'The challenge', contentType: 'text/plain', schema: { type: 'string' } }, ...errors(401, 404) },
    }),
    op({
      operationId: 'channelInbound',
      method: 'post',
      path: '/api/public/channels/:channelId/inbound',
      summary:
        'Inbound traffic of a channel, verified by its plugin over the raw body (WhatsApp: X-Hub-Signature-256; email webhook: X-Channel-Signature, both sha256=<HMAC-SHA256 hex>). Accepted payloads are queued and answered 200 {received:true} at once; a redelivered message id gets no second reply. Unknown or inactive channel 404; failed verification 401, nothing stored',
      tags,
      auth: 'public',
      params: inboundParams,
      responses: {
        '200': { description: 'Queued', schema: { type: 'object', properties: { received: { type: 'boolean' } } } },
        ...errors(401, 404),
      },
    }),
  ];
};
