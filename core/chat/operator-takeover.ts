/**
 * Held turns (issue 15): while an operator has taken a conversation over (`conversation.takeover`, see
 * public-chat/presence.ts), a message written into it on any surface (authenticated chat, public lane and
 * widget, channels) is saved for the operator and nothing else happens: no retrieval, no model call, no billing
 * event, no analytics turn. The answer says `operatorTakeover: true` with an empty response, and a channel sends
 * no reply. `conversation.released` clears the takeover and the agent answers again.
 */
import type { Agent } from '../agents/agent';
import { type ChannelIdentity, recordContactTurn } from '../contacts/contact-resolution';
import type { ChatUsage, Conversation, StoredMessage } from '../conversations/conversation';
import type { ChatDeps } from './chat-deps';

export const isTakenOver = (conversation: Conversation) => !!conversation.takeover;

export interface HeldTurn {
  agent: Agent;
  conversation: Conversation;
  variablesChanged: boolean;
  identity: ChannelIdentity | null;
}

/** Saves the visitor's message (marked as held for the operator) and answers without the agent. */
export async function storeHeldTurn(deps: ChatDeps, p: HeldTurn, userMessage: StoredMessage) {
  const { agent } = p;
  const message: StoredMessage = { ...userMessage, metadata: { ...userMessage.metadata, heldForOperator: true } };
  await deps.store.transaction(async (repos) => {
    if (p.variablesChanged)
      await repos.conversations.update(agent.organizationId, p.conversation.id, { variables: p.conversation.variables });
    await repos.conversations.addMessages(agent.organizationId, p.conversation.id, [message], message.createdAt);
    if (deps.contacts)
      await recordContactTurn(deps.contacts, repos, {
        organizationId: agent.organizationId,
        conversationId: p.conversation.id,
        contactId: p.conversation.contactId ?? null,
        identity: p.identity,
        userMessage: message.content,
        replied: false,
        at: message.createdAt,
      });
  });
  return {
    response: '',
    conversationId: p.conversation.id,
    messageId: message.id,
    sources: [],
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, cost: 0 } satisfies ChatUsage,
    model: agent.model,
    finishReason: 'stop' as const,
    operatorTakeover: true,
  };
}
