import type { RetrievedChunkHit } from '../ports/retrieval-recorder';
import type { KnowledgeDeps } from './knowledge-deps';

/** Hands a search to analytics (buffered by the recorder; a failure never fails the search). */
export function recordSearch(
  deps: KnowledgeDeps,
  input: {
    organizationId: string;
    knowledgeBaseIds: string[];
    query: string;
    origin: { source?: 'manual' | 'agent_rag'; agentId?: string; conversationId?: string; messageId?: string };
    chunks: RetrievedChunkHit[];
    costUsd: number;
  },
): void {
  if (!deps.recorder) return;
  try {
    deps.recorder.record({
      organizationId: input.organizationId,
      source: input.origin.source ?? 'manual',
      agentId: input.origin.agentId ?? null,
      conversationId: input.origin.conversationId ?? null,
      messageId: input.origin.messageId ?? null,
      query: input.query,
      knowledgeBaseIds: input.knowledgeBaseIds,
      chunks: input.chunks,
      costUsd: input.costUsd,
      at: deps.clock.now().toISOString(),
    });
  } catch (e) {
    deps.log('warn', 'analytics: could not record the search', e);
  }
}
