import { DomainError } from '../shared/errors';
import type { AgentStatus } from './agent';

/**
 * The agent publishing workflow (spec 3.2, docs/contracts.md "Publishing without review") as one pure function.
 *
 *   draft ──submit_review──▶ pending_review ──approve──▶ approved ──publish──▶ published
 *     ▲                         │  (owner/admin,              (KB ready)
 *     │                         │   KB ready)
 *     │                         └──reject (owner/admin, feedback)──▶ rejected ──submit_review──▶ pending_review
 *     └──── mark_draft (update with isDraft true) from published; no change elsewhere
 *
 * - A rejected agent leaves that state only through `submit_review`: every other move from it is INVALID_STATE
 *   (409), except `mark_draft`, which changes nothing there (a UI that always sends isDraft true still saves).
 * - Reviewers (owners and admins) may `publish` directly from draft, pending_review or approved (audited by
 *   the caller); everyone else publishes only an approved agent.
 * - `mark_live` is create/update with isDraft false: for a reviewer it takes the agent live (from draft,
 *   pending_review, approved or published); for anyone else it submits the agent for review (draft →
 *   pending_review; pending_review stays; approved goes live as `publish` would; published stays). Both
 *   under the KB readiness rule, checked again on an already published agent (so an update cannot unlink
 *   the last ready knowledge base of a live agent).
 * - Approve, publish and mark_live need a ready knowledge base (KNOWLEDGE_BASE_NOT_READY, 400).
 * - Any other move is INVALID_STATE (409). `isDraft` is true exactly when the status is not published.
 */
export type PublishingMove = 'submit_review' | 'approve' | 'reject' | 'publish' | 'mark_draft' | 'mark_live';

export interface MoveContext {
  /** Owner or admin of the agent's organization. */
  reviewer: boolean;
  /** At least one linked knowledge base with an indexed document. */
  knowledgeReady: boolean;
  /** Reject only. */
  feedback?: string | null;
}

export interface MoveResult {
  status: AgentStatus;
  isDraft: boolean;
  /** undefined: unchanged; null: cleared. */
  reviewFeedback?: string | null;
}

export const NOT_READY_MESSAGE = 'At least one knowledge base must be linked and have indexed documents before the agent can go live';

const FROM: Record<PublishingMove, readonly AgentStatus[]> = {
  submit_review: ['draft', 'rejected'],
  approve: ['pending_review'],
  reject: ['pending_review'],
  publish: ['approved'],
  mark_draft: ['draft', 'pending_review', 'approved', 'rejected', 'published'],
  mark_live: ['draft', 'pending_review', 'approved', 'published'],
};
const REVIEWER_PUBLISH_FROM: readonly AgentStatus[] = ['draft', 'pending_review', 'approved'];
const REVIEWER_ONLY: readonly PublishingMove[] = ['approve', 'reject'];

export const isDraftStatus = (status: AgentStatus) => status !== 'published';

/** The moves a caller could make from `status` (for draft-status), not counting knowledge readiness. */
export function availableMoves(status: AgentStatus, reviewer: boolean): PublishingMove[] {
  return (['submit_review', 'approve', 'reject', 'publish'] as const).filter(
    (m) => allowedFrom(m, reviewer).includes(status) && (reviewer || !REVIEWER_ONLY.includes(m)),
  );
}

function allowedFrom(move: PublishingMove, reviewer: boolean): readonly AgentStatus[] {
  return move === 'publish' && reviewer ? REVIEWER_PUBLISH_FROM : FROM[move];
}

export function applyMove(current: AgentStatus, move: PublishingMove, ctx: MoveContext): MoveResult {
  if (REVIEWER_ONLY.includes(move) && !ctx.reviewer) {
    throw new DomainError('FORBIDDEN', `Only owners and admins may ${move === 'approve' ? 'approve' : 'reject'} an agent`);
  }
  if (!allowedFrom(move, ctx.reviewer).includes(current)) {
    const hint =
      current === 'rejected'
        ? ' (a rejected agent must be resubmitted: POST /api/bots/:id/submit-review)'
        : move === 'publish' && !ctx.reviewer
          ? ' (it must be approved first)'
          : '';
    throw new DomainError('INVALID_STATE', `Cannot ${move.replace('_', ' ')} an agent whose status is ${current}${hint}`, {
      status: current,
      move,
    });
  }
  switch (move) {
    case 'submit_review':
      return { status: 'pending_review', isDraft: true };
    case 'reject': {
      const feedback = ctx.feedback?.trim();
      if (!feedback) throw new DomainError('VALIDATION', 'feedback is required to reject an agent');
      return { status: 'rejected', isDraft: true, reviewFeedback: feedback };
    }
    case 'mark_draft':
      return { status: current === 'published' ? 'draft' : current, isDraft: true };
    case 'approve':
    case 'publish':
    case 'mark_live': {
      if (!ctx.knowledgeReady) throw new DomainError('KNOWLEDGE_BASE_NOT_READY', NOT_READY_MESSAGE);
      if (move === 'approve') return { status: 'approved', isDraft: true, reviewFeedback: null };
      // A member's isDraft false asks for review unless the agent is already approved or live.
      if (move === 'mark_live' && !ctx.reviewer && (current === 'draft' || current === 'pending_review')) {
        return { status: 'pending_review', isDraft: true };
      }
      return { status: 'published', isDraft: false };
    }
  }
}
