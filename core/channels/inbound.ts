/**
 * Inbound channel traffic (DECISIONS "Channels"). On the request path only the plugin's verification runs
 * (challenge or signature over the raw bytes); an accepted payload is queued and answered 200 at once. The
 * worker parses it, drops message ids already seen (a redelivered webhook makes no second reply), resolves the
 * sender's contact, continues the conversation (email: by In-Reply-To/References; others: the contact's latest
 * on this channel), runs the chat pipeline and sends the reply through the plugin.
 */
import type { Agent } from '../agents/agent';
import { chat, type ChatCaller } from '../chat/chat-pipeline';
import { resolveContact } from '../contacts/contact-resolution';
import type { Job } from '../ports/job-queue';
import { DomainError } from '../shared/errors';
import type { Channel } from './channel';
import { CHANNEL_INBOUND_QUEUE, type ChannelDeps, type InboundJob, type OutboundJob } from './channel-deps';
import type { ChannelPlugin, InboundMessage, InboundRequest } from './channel-plugin';
import { channelContext, channelNotFound } from './channels';

export type InboundAnswer = { status: number; body: string; contentType: string };

const json = (status: number, body: unknown): InboundAnswer => ({ status, body: JSON.stringify(body), contentType: 'application/json' });

/** `GET|POST /api/public/channels/:channelId/inbound`: unknown or inactive channel 404; failed verification 401. */
export async function receiveInbound(deps: ChannelDeps, channelId: string, request: InboundRequest): Promise<InboundAnswer> {
  // From memory when recently read: the webhook stays off the database (the embedded store's single session
  // is busy with the worker's turns under load).
  const channel = await deps.store.repos.channels.findForInbound(channelId);
  if (!channel || !channel.isActive || !deps.registry.has(channel.type)) throw channelNotFound();
  const verdict = deps.registry.get(channel.type).receive(request, channelContext(deps, channel));
  switch (verdict.kind) {
    case 'respond':
      return { status: verdict.status, body: verdict.body, contentType: verdict.contentType ?? 'text/plain; charset=utf-8' };
    case 'reject':
      throw new DomainError('AUTHENTICATION_FAILED', verdict.message);
    case 'unsupported':
      throw new DomainError('NOT_FOUND', `A ${channel.type} channel takes no inbound webhook`);
    case 'accept':
      await deps.queue.enqueue<InboundJob>(CHANNEL_INBOUND_QUEUE, { channelId: channel.id, payload: verdict.payload });
      return json(200, { received: true });
  }
}

async function activeChannel(
  deps: ChannelDeps,
  channelId: string,
): Promise<{ channel: Channel; agent: Agent; plugin: ChannelPlugin } | null> {
  const channel = await deps.store.repos.channels.findById(channelId);
  if (!channel?.isActive || !deps.registry.has(channel.type)) return null;
  const agent = await deps.store.repos.agents.findById(channel.organizationId, channel.agentId);
  if (!agent) return null;
  return { channel, agent, plugin: deps.registry.get(channel.type) };
}

/** The worker of `channels.inbound`. */
export async function processInboundJob(deps: ChannelDeps, job: Job<InboundJob>): Promise<void> {
  const found = await activeChannel(deps, job.payload.channelId);
  // Deactivated meanwhile (its agent deleted): the message is dropped.
  if (!found) return;
  const ctx = channelContext(deps, found.channel);
  for (const message of found.plugin.parse(job.payload.payload, ctx)) await answer(deps, found, message);
}

async function answer(deps: ChannelDeps, found: { channel: Channel; agent: Agent; plugin: ChannelPlugin }, message: InboundMessage) {
  const { channel, agent, plugin } = found;
  const at = deps.clock.now().toISOString();
  const repos = deps.store.repos;
  // At most one reply per message id: marked before the model runs, so a redelivery during the turn is dropped too.
  if (!(await repos.channels.markInbound(channel.id, message.externalId, at))) return;
  const identity = { channel: plugin.identityChannel, identifier: message.from, displayName: message.fromName ?? null };
  const contact = await deps.store.transaction((tx) => resolveContact(deps.contacts, tx, channel.organizationId, identity, at));
  // Email threads by its headers (a new subject line starts a new conversation); chat apps have one running thread.
  const threaded = message.replyTo?.length ? await repos.channels.conversationOfMessages(channel.id, message.replyTo) : null;
  const conversationId =
    threaded ?? (plugin.identityChannel === 'email' ? null : await repos.channels.latestConversation(channel.id, contact.id));
  const caller: ChatCaller = {
    organizationId: channel.organizationId,
    userId: null,
    anonymousId: null,
    seesAll: true,
    platform: plugin.identityChannel,
    identity,
    channelId: channel.id,
  };
  let result;
  try {
    result = await chat(deps.chat, {
      agent,
      caller,
      input: { message: message.text.slice(0, 10_000), ...(conversationId ? { conversationId } : {}) },
      promptSource: 'live',
    });
  } catch (e) {
    deps.log('warn', `channel ${channel.id}: the agent could not answer message ${message.externalId}`, {
      code: (e as { code?: string }).code,
    });
    return;
  }
  await repos.channels.setInboundConversation(channel.id, message.externalId, result.conversationId);
  if (!plugin.send || !result.response.trim()) return;
  const sent = await plugin.send(
    {
      to: message.from,
      text: result.response,
      inReplyTo: { externalId: message.externalId, subject: message.subject ?? null, references: message.replyTo ?? [] },
    },
    channelContext(deps, channel),
  );
  // Replies to our reply thread into the same conversation.
  if (sent.externalId) await repos.channels.setInboundConversation(channel.id, sent.externalId, result.conversationId);
}

/** The worker of `channels.outbound`: an operator message of a channel conversation, delivered to its contact. */
export async function processOutboundJob(deps: ChannelDeps, job: Job<OutboundJob>): Promise<void> {
  const found = await activeChannel(deps, job.payload.channelId);
  const send = found?.plugin.send;
  if (!found || !send) return;
  const { channel, plugin } = found;
  const conversation = await deps.store.repos.conversations.findById(channel.organizationId, job.payload.conversationId);
  if (!conversation?.contactId) return;
  const identities = await deps.store.repos.contacts.identities(channel.organizationId, conversation.contactId);
  const to = identities.find((i) => i.channel === plugin.identityChannel)?.identifier;
  if (!to) return;
  const sent = await send.call(plugin, { to, text: job.payload.text }, channelContext(deps, channel));
  if (sent.externalId) await deps.store.repos.channels.setInboundConversation(channel.id, sent.externalId, conversation.id);
}
