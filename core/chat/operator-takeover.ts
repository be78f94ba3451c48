/**
 * Held turns (issue 15): while an operator has taken a conversation over (`conversation.takeover`, see
 * public-chat/presence.ts), a message written into it on any surface (authenticated chat, public lane and
 * widget, channels) is saved for the operator and nothing else happens: no retrieval, no model call, no billing
 * event, no analytics turn. The answer says `operatorTakeover: true` with an empty response, and a channel sends
 * no reply. `conversation.released` clears the takeover and the agent answers again.
 */
import type { Conversation, StoredMessage } from '../conversations/conversation';
import type { ResolvedAttachment } from '../ports/attachment-resolver';
import { recordContactTurn } from '../contacts/contact-resolution';
import type { ChatDeps } from './chat-deps';
import type { ChatResult, ChatTurn, PreparedChat } from './chat-pipeline';

export const isTakenOver = (conversation: Conversation) => !!conversation.takeover;

/** The prepared form of a held turn: nothing retrieved, nothing priced (it is never charged). */
export function heldTurn(h: {
  turn: ChatTurn;
  stream: boolean;
  conversation: Conversation;
  variablesChanged: boolean;
  attachments: ResolvedAttachment[];
  at: Date;
}): PreparedChat {
  const model = h.turn.agent.model;
  return {
    turn: h.turn,
    stream: h.stream,
    conversation: h.conversation,
    isNew: false,
    variablesChanged: h.variablesChanged,
    attachments: h.attachments,
    knowledge: { knowledgeBaseIds: [], chunks: [], sources: [], documentMap: [], entities: [] },
    price: { model, promptPricePerToken: 0, completionPricePerToken: 0, isFree: true },
    welcome: null,
    request: { model, messages: [] },
    startedAtMs: h.at.getTime(),
    userMessageAt: h.at.toISOString(),
    heldForOperator: true,
  };
}

/** Saves the visitor's message (marked as held for the operator) and answers without the agent. */
export async function storeHeldTurn(deps: ChatDeps, p: PreparedChat, userMessage: StoredMessage): Promise<ChatResult> {
  const { agent } = p.turn;
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
        identity: p.turn.caller.identity ?? null,
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
    usage: { promptTokens: 0, completionTokens: 0, totalTokens: 0, cost: 0 },
    model: agent.model,
    finishReason: 'stop',
    operatorTakeover: true,
  };
}
