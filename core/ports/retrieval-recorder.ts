/**
 * Records what analytics needs of every chat turn and search: which knowledge bases were searched, with what
 * query, which chunks came back with which scores, and the cost. `record` only buffers (it must stay far under
 * a millisecond on the chat path); adapters write in batches off the request path. Reads that must see the
 * latest events call `flush` first.
 */
export type RetrievalSource = 'manual' | 'agent_rag' | 'chat';

export interface RetrievedChunkHit {
  chunkId: string;
  knowledgeBaseId: string;
  documentId: string;
  score: number;
}

export interface RetrievalEvent {
  organizationId: string;
  source: RetrievalSource;
  agentId: string | null;
  conversationId: string | null;
  messageId: string | null;
  query: string;
  /** Every knowledge base searched (one with no hit is a gap for that knowledge base). */
  knowledgeBaseIds: string[];
  chunks: RetrievedChunkHit[];
  /** USD billed for the turn or search; split evenly across the searched knowledge bases. */
  costUsd: number;
  at: string;
}

export interface RetrievalRecorder {
  record(event: RetrievalEvent): void;
  /** Writes what is buffered (resolves once written). */
  flush(): Promise<void>;
}
