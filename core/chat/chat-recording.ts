import type { ChatDeps } from './chat-deps';
import type { PreparedChat } from './chat-pipeline';

/** Hands the turn's retrieval to analytics (buffered by the recorder: nothing is written on the chat path). */
export function recordTurn(deps: ChatDeps, p: PreparedChat, messageId: string, costUsd: number, at: string): void {
  if (!deps.recorder || p.knowledge.knowledgeBaseIds.length === 0) return;
  try {
    deps.recorder.record({
      organizationId: p.turn.agent.organizationId,
      source: 'chat',
      agentId: p.turn.agent.id,
      conversationId: p.conversation.id,
      messageId,
      query: p.turn.input.message,
      knowledgeBaseIds: p.knowledge.knowledgeBaseIds,
      chunks: p.knowledge.chunks.map((c) => ({
        chunkId: c.chunkId,
        knowledgeBaseId: c.knowledgeBaseId,
        documentId: c.documentId,
        score: c.score,
      })),
      costUsd,
      at,
    });
  } catch (e) {
    deps.log?.('warn', 'analytics: could not record the chat turn', e);
  }
}
