/** Spec 2.4: the configuration an agent version captures (workflow state is recorded, never restored). */
export interface AgentSnapshot {
  name: string;
  description: string;
  model: string;
  systemPrompt: string | null;
  isDraft: boolean;
  status: string;
  streamingEnabled: boolean;
  fileUploadsEnabled: boolean;
  voiceEnabled: boolean;
  voiceSettings: unknown;
  multimodalConfig: unknown;
  tools: unknown[];
  templateVariables: unknown[];
  knowledgeBaseIds: string[];
}

export interface AgentVersion {
  id: string;
  agentId: string;
  organizationId: string;
  /** 1, 2, 3... per agent; never reused, never rewritten. */
  version: number;
  changes: AgentSnapshot;
  notes: string;
  createdAt: string;
  /** Null when the author's account was deleted. */
  createdBy: string | null;
}

export interface AgentVersionRepository {
  /** Highest version number of the agent, 0 when none; call with the agent row locked. */
  latestNumber(agentId: string): Promise<number>;
  add(version: AgentVersion): Promise<void>;
  /** Newest first. */
  list(agentId: string, page: { limit: number; offset: number }): Promise<{ items: AgentVersion[]; total: number }>;
  find(agentId: string, version: number): Promise<AgentVersion | null>;
}
