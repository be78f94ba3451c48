/**
 * Conversations of an anonymous visitor (spec 4.5): created, listed, read, renamed and deleted by anonymousId.
 * A visitor sees only conversations of this agent that carry their anonymousId; any other id is 404.
 */
import type { Agent } from '../agents/agent';
import { startConversation } from '../chat/create-conversation';
import type { Conversation, StoredMessage } from '../conversations/conversation';
import { loadConversation } from '../conversations/conversation-access';
import { DomainError } from '../shared/errors';
import type { PageRequest } from '../shared/pagination';
import type { PublicChatDeps } from './public-chat-deps';
import { enforcePublicRateLimit } from './rate-limits';
import { requireAnonymousId, visitorOf } from './visitor';

/** Spec 8: public conversation title. */
export const PUBLIC_TITLE_MAX = 80;

export const toPublicConversationView = (c: Conversation, messageCount: number) => ({
  id: c.id,
  title: c.title,
  messageCount,
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

/** Messages as a visitor sees them: no sources, costs or internal metadata. */
export function toPublicMessageView(m: StoredMessage) {
  const attachments = Array.isArray(m.metadata.attachments)
    ? (m.metadata.attachments as { id: string; filename: string; mimeType: string }[])
    : undefined;
  const operator = m.metadata.operator as { id: string; displayName: string } | undefined;
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    createdAt: m.createdAt,
    ...(attachments ? { attachments: attachments.map((a) => ({ id: a.id, filename: a.filename, contentType: a.mimeType })) } : {}),
    ...(operator ? { operator: { displayName: operator.displayName } } : {}),
  };
}

export async function loadVisitorConversation(
  deps: PublicChatDeps,
  agent: Agent,
  anonymousId: string,
  conversationId: string,
): Promise<Conversation> {
  return loadConversation(deps.chat.store.repos, visitorOf(agent, requireAnonymousId(anonymousId)), conversationId, agent.id);
}

/**
 * `POST .../conversations`: the same start (and welcome message) as the authenticated surface. It counts
 * against the chat rate limits: a generated welcome is a billed model call.
 */
export async function createPublicConversation(deps: PublicChatDeps, agent: Agent, anonymousId: string, clientIp: string) {
  const visitor = requireAnonymousId(anonymousId);
  await enforcePublicRateLimit(deps, 'chat', { anonymousId: visitor, clientIp });
  return startConversation(deps.chat, agent, visitorOf(agent, visitor), {});
}

export async function listPublicConversations(deps: PublicChatDeps, agent: Agent, anonymousId: string, page: PageRequest) {
  const visitor = requireAnonymousId(anonymousId);
  const { items, total } = await deps.chat.store.repos.conversations.list(
    { organizationId: agent.organizationId, agentId: agent.id, anonymousId: visitor },
    page,
  );
  return {
    conversations: items.map((c) => toPublicConversationView(c, c.messageCount)),
    pagination: { limit: page.limit, offset: page.offset, total, hasMore: page.offset + items.length < total },
  };
}

export async function listPublicMessages(
  deps: PublicChatDeps,
  agent: Agent,
  anonymousId: string,
  conversationId: string,
  page: PageRequest,
) {
  const c = await loadVisitorConversation(deps, agent, anonymousId, conversationId);
  const messages = await deps.chat.store.repos.conversations.messages(c.organizationId, c.id, page);
  return { messages: messages.map(toPublicMessageView) };
}

export async function renamePublicConversation(
  deps: PublicChatDeps,
  agent: Agent,
  anonymousId: string,
  conversationId: string,
  title: unknown,
) {
  const trimmed = typeof title === 'string' ? title.replace(/\s+/g, ' ').trim() : '';
  if (!trimmed || trimmed.length > PUBLIC_TITLE_MAX) {
    throw new DomainError('VALIDATION', `title is required (1-${PUBLIC_TITLE_MAX} characters)`, [
      { field: 'title', message: `must be 1-${PUBLIC_TITLE_MAX} characters` },
    ]);
  }
  const c = await loadVisitorConversation(deps, agent, anonymousId, conversationId);
  const repos = deps.chat.store.repos;
  const updated = await repos.conversations.update(c.organizationId, c.id, {
    title: trimmed,
    updatedAt: deps.chat.clock.now().toISOString(),
  });
  if (!updated) throw new DomainError('NOT_FOUND', 'Conversation not found');
  return { conversation: toPublicConversationView(updated, await repos.conversations.countMessages(c.organizationId, c.id)) };
}

/** Soft delete: the organization keeps it for its records; the visitor no longer sees it. */
export async function deletePublicConversation(deps: PublicChatDeps, agent: Agent, anonymousId: string, conversationId: string) {
  const c = await loadVisitorConversation(deps, agent, anonymousId, conversationId);
  await deps.chat.store.repos.conversations.softDelete(c.organizationId, c.id, deps.chat.clock.now().toISOString());
  return { success: true as const };
}
