/**
 * Inbound channel traffic (docs/contracts.md "Channels"). On the request path only the plugin's verification runs
 * (challenge or signature over the raw bytes); an accepted payload is queued and answered 200 at once. The
 * worker parses it, resolves the sender's contact, continues the conversation (email: by In-Reply-To/References;
 * others: the contact's latest on this channel) and runs the chat pipeline; the answer's reply is a delivery row
 * written with the answer (./deliveries.ts), sent through the plugin by the `channels.outbound` worker with
 * retries. A redelivered message id makes no second answer: when its answer is stored, only its delivery is
 * scheduled again (an unsent reply still goes out); while its turn runs, or when it got no answer, it is dropped.
 */
import type { Agent } from '../agents/agent';
import { chat, type ChatCaller } from '../chat/chat-pipeline';
import { resolveContact } from '../contacts/contact-resolution';
import type { Job } from '../ports/job-queue';
import { DomainError } from '../shared/errors';
import type { Channel } from './channel';
import { CHANNEL_INBOUND_QUEUE, type ChannelDeps, type InboundJob } from './channel-deps';
import type { ChannelPlugin, InboundMessage, InboundRequest, OutboundMessage } from './channel-plugin';
import { channelContext, channelNotFound } from './channels';
import { recordChannelDelivery, resumeChannelDelivery } from './deliveries';

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
  const repos = deps.store.repos;
  // Answered already (a redelivery): the reply is only scheduled again, in case it is not sent yet.
  const delivery = await repos.channelDeliveries.findForInbound(channel.id, message.externalId);
  if (delivery) {
    await repos.channels.setInboundConversation(channel.id, message.externalId, delivery.conversationId);
    await resumeChannelDelivery(deps, delivery);
    return;
  }
  const at = deps.clock.now().toISOString();
  // At most one answer per message id: marked before the model runs, so a redelivery during the turn is dropped too.
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
  const reply = (text: string): OutboundMessage => ({
    to: message.from,
    text,
    inReplyTo: { externalId: message.externalId, subject: message.subject ?? null, references: message.replyTo ?? [] },
  });
  let result;
  try {
    result = await chat(
      deps.chat,
      {
        agent,
        caller,
        input: { message: message.text.slice(0, 10_000), ...(conversationId ? { conversationId } : {}) },
        promptSource: 'live',
      },
      {
        // The reply's delivery commits with the answer: a stored answer always has its reply on the way.
        onAnswerStored: async (tx, stored) => {
          if (!plugin.send || !stored.text.trim()) return;
          await recordChannelDelivery(deps, tx, {
            organizationId: channel.organizationId,
            channelId: channel.id,
            agentId: agent.id,
            conversationId: stored.conversationId,
            inboundMessageId: message.externalId,
            messageId: stored.messageId,
            payload: reply(stored.text),
          });
        },
      },
    );
  } catch (e) {
    deps.log('warn', `channel ${channel.id}: the agent could not answer message ${message.externalId}`, {
      code: (e as { code?: string }).code,
    });
    return;
  }
  await repos.channels.setInboundConversation(channel.id, message.externalId, result.conversationId);
}
