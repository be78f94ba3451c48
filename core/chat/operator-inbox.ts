import { loadAgent } from '../agents/agent-access';
import type { Conversation, ConversationSummary, StoredMessage } from '../conversations/conversation';
import { conversationNotFound } from '../conversations/conversation-access';
import type { Actor } from '../identity/actor';
import { DomainError } from '../shared/errors';
import type { ChatDeps } from './chat-deps';
import { toMessageView } from './conversations';

/**
 * The operator inbox (docs/contracts.md "Operator inbox"): every conversation of an agent, whatever its platform
 * (public visitors, channels, API), for members with `edit` on the agent. Unlike GET /api/conversations it is
 * not limited to the caller's own conversations: an operator answers visitors.
 */
export interface InboxQuery {
  platform?: string;
  contactId?: string;
  updatedSince?: string;
  limit: number;
  offset: number;
}

const ISO_DATE_TIME = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/i;

const takeoverView = (c: Conversation) =>
  c.takeover ? { operator: { displayName: c.takeover.displayName }, since: c.takeover.since } : null;

const inboxItem = (c: ConversationSummary) => ({
  id: c.id,
  botId: c.agentId,
  platform: c.platform,
  contactId: c.contactId ?? null,
  title: c.title,
  messageCount: c.messageCount,
  takeover: takeoverView(c),
  createdAt: c.createdAt,
  updatedAt: c.updatedAt,
});

export async function listAgentConversations(deps: ChatDeps, actor: Actor, agentId: string, q: InboxQuery) {
  const agent = await loadAgent(deps.store.repos, actor, agentId, 'edit');
  // A four-digit year only: Date accepts '12345' (year 12345), which the database cannot store.
  if (q.updatedSince !== undefined && (!ISO_DATE_TIME.test(q.updatedSince) || Number.isNaN(Date.parse(q.updatedSince))))
    throw new DomainError('VALIDATION', 'updatedSince must be an ISO 8601 date-time', [{ field: 'updatedSince', message: 'invalid date' }]);
  const { items, total } = await deps.store.repos.conversations.list(
    {
      organizationId: agent.organizationId,
      agentId: agent.id,
      ...(q.platform ? { platform: q.platform } : {}),
      ...(q.contactId ? { contactId: q.contactId } : {}),
      ...(q.updatedSince ? { updatedSince: new Date(q.updatedSince).toISOString() } : {}),
    },
    { limit: q.limit, offset: q.offset },
  );
  return { conversations: items.map(inboxItem), total };
}

/**
 * Operator messages carry who wrote them, so the console tells them apart from the agent's answers; visitor
 * messages written during a takeover say the agent left them to the operator.
 */
const inboxMessage = (m: StoredMessage) => {
  const { operator, heldForOperator } = m.metadata as { operator?: { displayName?: unknown }; heldForOperator?: unknown };
  return {
    ...toMessageView(m),
    ...(operator && typeof operator.displayName === 'string' ? { operator: { displayName: operator.displayName } } : {}),
    ...(heldForOperator === true ? { heldForOperator: true as const } : {}),
  };
};

export async function listAgentConversationMessages(deps: ChatDeps, actor: Actor, agentId: string, conversationId: string) {
  const repos = deps.store.repos;
  const agent = await loadAgent(repos, actor, agentId, 'edit');
  const conversation = await repos.conversations.findById(agent.organizationId, conversationId);
  if (!conversation || conversation.agentId !== agent.id) throw conversationNotFound();
  return {
    messages: (await repos.conversations.messages(agent.organizationId, conversation.id)).map(inboxMessage),
    takeover: takeoverView(conversation),
  };
}
