import type { AgentStatus } from './agent';
import { applyMove, availableMoves, isDraftStatus, type MoveContext, type PublishingMove } from './publishing-state';

const member: MoveContext = { reviewer: false, knowledgeReady: true };
const admin: MoveContext = { reviewer: true, knowledgeReady: true };
const code = (fn: () => unknown) => {
  try {
    fn();
  } catch (e) {
    return (e as { code: string }).code;
  }
  return 'OK';
};

describe('agent publishing state machine', () => {
  it('walks draft -> pending_review -> approved -> published', () => {
    expect(applyMove('draft', 'submit_review', member)).toEqual({ status: 'pending_review', isDraft: true });
    expect(applyMove('pending_review', 'approve', admin)).toEqual({ status: 'approved', isDraft: true, reviewFeedback: null });
    expect(applyMove('approved', 'publish', member)).toEqual({ status: 'published', isDraft: false });
  });

  it('rejects with feedback and lets the author resubmit', () => {
    expect(applyMove('pending_review', 'reject', { ...admin, feedback: '  too vague ' })).toEqual({
      status: 'rejected',
      isDraft: true,
      reviewFeedback: 'too vague',
    });
    expect(code(() => applyMove('pending_review', 'reject', { ...admin, feedback: '   ' }))).toBe('VALIDATION');
    expect(applyMove('rejected', 'submit_review', member)).toEqual({ status: 'pending_review', isDraft: true });
  });

  it('lets a rejected agent leave only through submit_review (docs/contracts.md "Publishing without review")', () => {
    for (const ctx of [member, admin]) {
      expect(code(() => applyMove('rejected', 'mark_live', ctx))).toBe('INVALID_STATE');
      expect(code(() => applyMove('rejected', 'publish', ctx))).toBe('INVALID_STATE');
      // isDraft true on a rejected agent saves the rest and changes nothing
      expect(applyMove('rejected', 'mark_draft', ctx)).toEqual({ status: 'rejected', isDraft: true });
    }
  });

  it('isDraft false takes an agent live for reviewers and submits it for review for members', () => {
    expect(applyMove('draft', 'mark_live', admin)).toEqual({ status: 'published', isDraft: false });
    expect(applyMove('pending_review', 'mark_live', admin)).toEqual({ status: 'published', isDraft: false });
    expect(applyMove('draft', 'mark_live', member)).toEqual({ status: 'pending_review', isDraft: true });
    expect(applyMove('pending_review', 'mark_live', member)).toEqual({ status: 'pending_review', isDraft: true });
    expect(applyMove('approved', 'mark_live', member)).toEqual({ status: 'published', isDraft: false });
    expect(applyMove('published', 'mark_live', member)).toEqual({ status: 'published', isDraft: false });
    expect(code(() => applyMove('draft', 'mark_live', { ...member, knowledgeReady: false }))).toBe('KNOWLEDGE_BASE_NOT_READY');
  });

  it('keeps approve and reject for owners and admins', () => {
    expect(code(() => applyMove('pending_review', 'approve', member))).toBe('FORBIDDEN');
    expect(code(() => applyMove('pending_review', 'reject', { ...member, feedback: 'no' }))).toBe('FORBIDDEN');
  });

  it('needs a ready knowledge base to approve, publish or go live', () => {
    const notReady = { ...admin, knowledgeReady: false };
    expect(code(() => applyMove('pending_review', 'approve', notReady))).toBe('KNOWLEDGE_BASE_NOT_READY');
    expect(code(() => applyMove('approved', 'publish', notReady))).toBe('KNOWLEDGE_BASE_NOT_READY');
    expect(code(() => applyMove('draft', 'mark_live', notReady))).toBe('KNOWLEDGE_BASE_NOT_READY');
    expect(code(() => applyMove('published', 'mark_live', notReady))).toBe('KNOWLEDGE_BASE_NOT_READY');
    expect(code(() => applyMove('pending_review', 'reject', { ...notReady, feedback: 'x' }))).toBe('OK');
  });

  it('lets reviewers publish without review, but not members', () => {
    for (const from of ['draft', 'pending_review'] as AgentStatus[]) {
      expect(applyMove(from, 'publish', admin).status).toBe('published');
      expect(code(() => applyMove(from, 'publish', member))).toBe('INVALID_STATE');
    }
  });

  it('answers INVALID_STATE to every other move', () => {
    const invalid: [AgentStatus, PublishingMove][] = [
      ['draft', 'approve'],
      ['draft', 'reject'],
      ['approved', 'submit_review'],
      ['approved', 'approve'],
      ['published', 'submit_review'],
      ['published', 'publish'],
      ['published', 'approve'],
      ['rejected', 'approve'],
      ['rejected', 'publish'],
      ['rejected', 'mark_live'],
      ['pending_review', 'submit_review'],
    ];
    for (const [from, move] of invalid)
      expect([from, move, code(() => applyMove(from, move, { ...admin, feedback: 'f' }))]).toEqual([from, move, 'INVALID_STATE']);
  });

  it('keeps isDraft consistent with the status', () => {
    const statuses: AgentStatus[] = ['draft', 'pending_review', 'approved', 'rejected', 'published'];
    const moves: PublishingMove[] = ['submit_review', 'approve', 'reject', 'publish', 'mark_draft', 'mark_live'];
    for (const from of statuses) {
      for (const move of moves) {
        let result;
        try {
          result = applyMove(from, move, { ...admin, feedback: 'f' });
        } catch {
          continue;
        }
        expect(result.isDraft).toBe(isDraftStatus(result.status));
      }
    }
  });

  it('mark_draft unpublishes and leaves reviews alone', () => {
    expect(applyMove('published', 'mark_draft', member).status).toBe('draft');
    expect(applyMove('pending_review', 'mark_draft', member).status).toBe('pending_review');
    expect(applyMove('approved', 'mark_draft', member).status).toBe('approved');
  });

  it('lists the moves open to a caller', () => {
    expect(availableMoves('draft', false)).toEqual(['submit_review']);
    expect(availableMoves('draft', true)).toEqual(['submit_review', 'publish']);
    expect(availableMoves('pending_review', true)).toEqual(['approve', 'reject', 'publish']);
    expect(availableMoves('pending_review', false)).toEqual([]);
    expect(availableMoves('approved', false)).toEqual(['publish']);
    expect(availableMoves('published', true)).toEqual([]);
  });
});
