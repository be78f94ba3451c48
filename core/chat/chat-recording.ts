import type { RetrievedChunk } from '../knowledge/retrieve';
import type { ChatDeps } from './chat-deps';

export interface RecordedTurn {
  organizationId: string;
  agentId: string;
  conversationId: string;
  messageId: string;
  message: string;
  knowledgeBaseIds: string[];
  chunks: RetrievedChunk[];
  costUsd: number;
  at: string;
}

/** Hands the turn's retrieval to analytics (buffered by the recorder: nothing is written on the chat path). */
export function recordTurn(deps: ChatDeps, t: RecordedTurn): void {
  if (!deps.recorder || t.knowledgeBaseIds.length === 0) return;
  try {
    deps.recorder.record({
      organizationId: t.organizationId,
      source: 'chat',
      agentId: t.agentId,
      conversationId: t.conversationId,
      messageId: t.messageId,
      query: t.message,
      knowledgeBaseIds: t.knowledgeBaseIds,
      chunks: t.chunks.map((c) => ({ chunkId: c.chunkId, knowledgeBaseId: c.knowledgeBaseId, documentId: c.documentId, score: c.score })),
      costUsd: t.costUsd,
      at: t.at,
    });
  } catch (e) {
    deps.log?.('warn', 'analytics: could not record the chat turn', e);
  }
}
