/**
 * `POST /api/public/agents/:slug/chat` (spec 4.5): the authenticated chat pipeline (core/chat/chat-pipeline.ts)
 * with an anonymous caller. Only message, conversationId, stream and attachments are taken from the visitor
 * (no variables, voice or system prompt override). Billing goes to the agent's organization like any chat, and
 * a paid model without credits is refused the same way (402) before the model is called.
 */
import type { Agent } from '../agents/agent';
import type { AttachmentRef, ChatInput } from '../chat/chat-input';
import { prepareChat, type PreparedChat } from '../chat/chat-pipeline';
import { DomainError } from '../shared/errors';
import type { PublicChatDeps } from './public-chat-deps';
import { PUBLIC_TITLE_MAX } from './public-conversations';
import { enforcePublicRateLimit } from './rate-limits';
import { requireAnonymousId, visitorOf } from './visitor';

export interface PublicChatInput {
  message: string;
  conversationId: string;
  anonymousId: string;
  stream?: boolean;
  attachments?: AttachmentRef[];
}

/** Attachments need file uploads on the agent: 403 on the public surface (spec 7), before anything is read. */
export function requireUploadsEnabled(agent: Agent): void {
  if (!agent.fileUploadsEnabled) throw new DomainError('FORBIDDEN', 'File uploads are disabled for this agent');
}

export async function preparePublicChat(
  deps: PublicChatDeps,
  agent: Agent,
  input: PublicChatInput,
  clientIp: string,
): Promise<PreparedChat> {
  const anonymousId = requireAnonymousId(input.anonymousId);
  if (typeof input.conversationId !== 'string' || !input.conversationId) {
    throw new DomainError('VALIDATION', 'conversationId is required: start one with POST .../conversations', [
      { field: 'conversationId', message: 'is required' },
    ]);
  }
  const attachments = input.attachments ?? [];
  if (Array.isArray(attachments) && attachments.length > 0) requireUploadsEnabled(agent);
  await enforcePublicRateLimit(deps, 'chat', { anonymousId, clientIp });

  const chatInput: ChatInput = { message: input.message, conversationId: input.conversationId, stream: input.stream === true, attachments };
  // Same pipeline, different caller: attachments resolve only for this visitor (and with their access tokens).
  const prepared = await prepareChat(
    { ...deps.chat, attachments: deps.resolver.forVisitor(anonymousId) },
    { agent, caller: visitorOf(agent, anonymousId), input: chatInput, promptSource: 'live' },
  );
  if (!prepared.conversation.title) {
    // A conversation started by POST .../conversations has no title: its first message names it, until renamed.
    const title = input.message.replace(/\s+/g, ' ').trim().slice(0, PUBLIC_TITLE_MAX) || null;
    await deps.chat.store.repos.conversations.update(agent.organizationId, prepared.conversation.id, { title });
    prepared.conversation.title = title;
  }
  return prepared;
}
