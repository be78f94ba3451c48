/** Totals over an agent's conversations and messages (written by the chat area). */
export interface AgentUsageTotals {
  conversationCount: number;
  messageCount: number;
  totalTokens: number;
  /** USD, as billed to the organization. */
  estimatedCost: number;
}

/** Read side of the conversations and messages tables for the agents area. */
export interface AgentUsageReader {
  totals(organizationId: string, agentId: string): Promise<AgentUsageTotals>;
  /** Conversations that are not deleted (deleting an agent keeps them). */
  conversationCount(organizationId: string, agentId: string): Promise<number>;
}
