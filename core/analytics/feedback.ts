/**
 * Message feedback (issue 12): thumbs up or down with an optional comment on an answer, by whoever may see the
 * conversation (a signed-in member on the authenticated surface, the visitor on the public one). One rating per
 * rater and message; rating again replaces it. It feeds `feedback-gaps` and the learning prior.
 */
import type { Agent } from '../agents/agent';
import { type ConversationViewer, loadConversation, viewerOf } from '../conversations/conversation-access';
import type { Actor } from '../identity/actor';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Store } from '../ports/store';
import { loadPublicAgent } from '../public-chat/public-agent';
import { requireAnonymousId, visitorOf } from '../public-chat/visitor';
import { DomainError } from '../shared/errors';

export type Rating = 'up' | 'down';

export interface MessageFeedback {
  id: string;
  organizationId: string;
  conversationId: string;
  messageId: string;
  agentId: string;
  rater: string;
  rating: Rating;
  comment: string | null;
  createdAt: string;
  updatedAt: string;
}

export interface FeedbackStore {
  /** Role of a message of the conversation, or null. */
  messageRole(organizationId: string, conversationId: string, messageId: string): Promise<string | null>;
  /** Inserts or replaces the rater's rating of the message; returns the stored row. */
  upsert(feedback: MessageFeedback): Promise<MessageFeedback>;
}

export interface FeedbackDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  feedback: FeedbackStore;
}

export interface FeedbackInput {
  rating: Rating;
  comment?: string | null;
}

export const MAX_FEEDBACK_COMMENT = 2000;

const view = (f: MessageFeedback) => ({
  feedback: {
    id: f.id,
    messageId: f.messageId,
    conversationId: f.conversationId,
    rating: f.rating,
    comment: f.comment,
    createdAt: f.createdAt,
    updatedAt: f.updatedAt,
  },
});

async function rate(
  deps: FeedbackDeps,
  viewer: ConversationViewer,
  rater: string,
  conversationId: string,
  messageId: string,
  input: FeedbackInput,
  agentId?: string,
) {
  const conversation = await loadConversation(deps.store.repos, viewer, conversationId, agentId);
  const role = await deps.feedback.messageRole(conversation.organizationId, conversation.id, messageId);
  if (!role) throw new DomainError('NOT_FOUND', 'Message not found');
  if (role !== 'assistant')
    throw new DomainError('VALIDATION', 'Only answers of the agent can be rated', [{ field: 'messageId', message: 'not an answer' }]);
  const now = deps.clock.now().toISOString();
  const comment = input.comment?.trim() ? input.comment.trim().slice(0, MAX_FEEDBACK_COMMENT) : null;
  const stored = await deps.feedback.upsert({
    id: deps.ids.uuid(),
    organizationId: conversation.organizationId,
    conversationId: conversation.id,
    messageId,
    agentId: conversation.agentId,
    rater,
    rating: input.rating,
    comment,
    createdAt: now,
    updatedAt: now,
  });
  return view(stored);
}

/** `POST /api/conversations/:id/messages/:messageId/feedback` */
export function rateMessage(deps: FeedbackDeps, actor: Actor, conversationId: string, messageId: string, input: FeedbackInput) {
  return rate(deps, viewerOf(actor), `user:${actor.userId}`, conversationId, messageId, input);
}

/** `POST /api/public/agents/:slug/conversations/:conversationId/messages/:messageId/feedback` */
export async function ratePublicMessage(
  deps: FeedbackDeps,
  slug: string,
  actor: Actor | null,
  conversationId: string,
  messageId: string,
  input: FeedbackInput & { anonymousId: string },
) {
  const agent: Agent = await loadPublicAgent(deps.store.repos, slug, actor);
  const anonymousId = requireAnonymousId(input.anonymousId);
  return rate(deps, visitorOf(agent, anonymousId), `anon:${anonymousId}`, conversationId, messageId, input, agent.id);
}
