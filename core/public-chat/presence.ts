/**
 * Operator presence (spec 6, "Operator presence SSE"; names and payloads settled here). A human operator (an
 * organization member with `use` on the agent) publishes events on the conversation's bus topic
 * `conversation.<conversationId>.presence`; the visitor's SSE stream (`GET .../conversations/:id/events`)
 * relays them as `data: <PresenceEvent JSON>` frames.
 *
 * | type                   | meaning                                        | extra fields                  |
 * | operator.joined        | an operator is watching the conversation       |                               |
 * | operator.left          | the operator stopped watching                  |                               |
 * | operator.typing        | typing indicator                               | typing (boolean, default true)|
 * | operator.message       | a message written by the operator (saved as an | message, messageId            |
 * |                        | assistant message with the operator's name)    |                               |
 * | conversation.takeover  | a human took the conversation over             |                               |
 * | conversation.released  | the conversation went back to the agent        |                               |
 *
 * Every event carries {type, conversationId, operator: {displayName}, emittedAt}. conversation.takeover also pauses
 * the agent: it is stored on the conversation, and until conversation.released the visitor's messages (public
 * lane, widget, channels, authenticated chat) are saved for the operator without a model call or billing (see
 * chat-pipeline's held turns).
 */
import type { Agent } from '../agents/agent';
import { loadAgent } from '../agents/agent-access';
import type { StoredMessage } from '../conversations/conversation';
import { conversationNotFound } from '../conversations/conversation-access';
import type { Actor } from '../identity/actor';
import type { Subscription } from '../ports/job-queue';
import { DomainError } from '../shared/errors';
import type { PublicChatDeps } from './public-chat-deps';
import { loadVisitorConversation } from './public-conversations';

export const PRESENCE_EVENT_TYPES = [
  'operator.joined',
  'operator.left',
  'operator.typing',
  'operator.message',
  'conversation.takeover',
  'conversation.released',
] as const;
export type PresenceEventType = (typeof PRESENCE_EVENT_TYPES)[number];

export interface PresenceEvent {
  type: PresenceEventType;
  conversationId: string;
  operator: { displayName: string };
  /** operator.message */
  message?: string;
  messageId?: string;
  /** operator.typing */
  typing?: boolean;
  emittedAt: string;
}

export const presenceTopic = (conversationId: string) => `conversation.${conversationId}.presence`;

export interface OperatorEventInput {
  type: string;
  message?: string;
  typing?: boolean;
}

const OPERATOR_MESSAGE_MAX = 10_000;

/**
 * `POST /api/bots/:id/conversations/:convId/operator-events`: needs `edit` on the agent (operators, docs/contracts.md "Operator inbox"; viewers only chat); the conversation must
 * be one of this agent's (any visitor's or member's; 404 otherwise). operator.message is also saved to the
 * conversation, so it stays in the visitor's history and the model's context.
 */
export async function publishOperatorEvent(
  deps: PublicChatDeps,
  actor: Actor,
  agentId: string,
  conversationId: string,
  input: OperatorEventInput,
): Promise<{ event: PresenceEvent }> {
  const chat = deps.chat;
  const agent = await loadAgent(chat.store.repos, actor, agentId, 'edit');
  const conversation = await chat.store.repos.conversations.findById(agent.organizationId, conversationId);
  if (!conversation || conversation.agentId !== agent.id) throw conversationNotFound();
  if (!PRESENCE_EVENT_TYPES.includes(input.type as PresenceEventType)) {
    throw new DomainError('VALIDATION', `type must be one of ${PRESENCE_EVENT_TYPES.join(', ')}`, [
      { field: 'type', message: 'unknown event type' },
    ]);
  }
  const type = input.type as PresenceEventType;
  const at = chat.clock.now().toISOString();
  const event: PresenceEvent = { type, conversationId: conversation.id, operator: { displayName: actor.displayName }, emittedAt: at };
  // Stored before the event goes out, so a visitor who sees the takeover never gets an agent answer after it.
  if (type === 'conversation.takeover')
    await chat.store.repos.conversations.update(conversation.organizationId, conversation.id, {
      takeover: { operatorId: actor.userId, displayName: actor.displayName, since: at },
    });
  if (type === 'conversation.released')
    await chat.store.repos.conversations.update(conversation.organizationId, conversation.id, { takeover: null });
  if (type === 'operator.typing') event.typing = input.typing ?? true;
  if (type === 'operator.message') {
    const text = typeof input.message === 'string' ? input.message.trim() : '';
    if (!text || text.length > OPERATOR_MESSAGE_MAX)
      throw new DomainError('VALIDATION', `message is required for operator.message (1-${OPERATOR_MESSAGE_MAX} characters)`, [
        { field: 'message', message: 'is required' },
      ]);
    const message: StoredMessage = {
      id: chat.ids.uuid(),
      conversationId: conversation.id,
      organizationId: conversation.organizationId,
      role: 'assistant',
      content: text,
      sources: [],
      promptTokens: 0,
      completionTokens: 0,
      costUsd: 0,
      model: null,
      responseMs: null,
      metadata: { operator: { id: actor.userId, displayName: actor.displayName } },
      createdAt: at,
    };
    await chat.store.repos.conversations.addMessages(conversation.organizationId, conversation.id, [message], at);
    // A channel conversation's person is not on the presence stream: the message goes out through the channel.
    if (conversation.channelId && deps.channelOutbound)
      await deps.channelOutbound({ channelId: conversation.channelId, conversationId: conversation.id, text, messageId: message.id });
    event.message = text;
    event.messageId = message.id;
  }
  await deps.bus.publish(presenceTopic(conversation.id), event);
  return { event };
}

/**
 * Subscribes a visitor to their conversation's presence events (404 unless the conversation is theirs). The
 * subscription exists when this resolves, so nothing published afterwards is missed; close it when the client
 * goes away.
 */
export async function subscribePresence(
  deps: PublicChatDeps,
  agent: Agent,
  anonymousId: string,
  conversationId: string,
  onEvent: (event: PresenceEvent) => void,
): Promise<Subscription> {
  const conversation = await loadVisitorConversation(deps, agent, anonymousId, conversationId);
  return deps.bus.subscribe<PresenceEvent>(presenceTopic(conversation.id), (e) =>
    onEvent({ ...e.payload, emittedAt: e.payload.emittedAt ?? e.emittedAt }),
  );
}
