export type SearchSource = 'manual' | 'agent_rag';

/** One search as seen by one knowledge base (a search over three knowledge bases logs three rows). */
export interface SearchLogEntry {
  id: string;
  organizationId: string;
  knowledgeBaseId: string;
  query: string;
  source: SearchSource;
  userId: string | null;
  agentId: string | null;
  conversationId: string | null;
  messageId: string | null;
  /** Results of this knowledge base in the response, and the best score among them. */
  resultCount: number;
  topScore: number | null;
  durationMs: number;
  createdAt: string;
}

export interface SearchLogRepository {
  record(entries: SearchLogEntry[]): Promise<void>;
  list(
    organizationId: string,
    knowledgeBaseId: string,
    page: { limit: number; offset: number },
  ): Promise<{ items: SearchLogEntry[]; total: number }>;
  clear(organizationId: string, knowledgeBaseId: string): Promise<number>;
}
