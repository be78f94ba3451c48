import type { ResourcePermission } from '../identity/policy';

/** Publishing workflow states (spec 3.2). */
export type AgentStatus = 'draft' | 'pending_review' | 'approved' | 'rejected' | 'published';

export interface VoiceSettings {
  voice: string;
  speed?: number;
}

export interface MultimodalConfig {
  enabled: boolean;
  supportedTypes?: ('image' | 'document' | 'audio' | 'video' | 'text')[];
}

export interface AgentTool {
  toolDefinitionId: string;
  isEnabled: boolean;
  config?: Record<string, unknown>;
}

export interface Distribution {
  require_org_membership: boolean;
  allowed_group_ids: string[] | null;
}

export interface Agent {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  /** provider/name */
  model: string;
  systemPrompt: string | null;
  isDraft: boolean;
  status: AgentStatus;
  streamingEnabled: boolean;
  fileUploadsEnabled: boolean;
  voiceEnabled: boolean;
  voiceSettings: VoiceSettings | null;
  multimodalConfig: MultimodalConfig | null;
  tools: AgentTool[];
  templateVariables: Record<string, unknown>[];
  /** Public slug once distributed. */
  slug: string | null;
  distribution: Distribution | null;
  reviewFeedback: string | null;
  createdBy: string;
  createdAt: string;
  updatedAt: string;
  deletedAt: string | null;
}

/** Explicit per-user permissions on one agent (how a viewer gets edit or delete). */
export interface AgentGrant {
  agentId: string;
  userId: string;
  permissions: ResourcePermission[];
}

/** Agents are always read within one organization; deleted agents are invisible unless asked for. */
export interface AgentRepository {
  create(agent: Agent): Promise<void>;
  findById(organizationId: string, id: string, options?: { includeDeleted?: boolean }): Promise<Agent | null>;
  findBySlug(slug: string): Promise<Agent | null>;
  list(organizationId: string, page: { limit: number; offset: number }): Promise<{ items: Agent[]; total: number }>;
  countLive(organizationId: string): Promise<number>;
  update(organizationId: string, id: string, patch: Partial<Omit<Agent, 'id' | 'organizationId' | 'createdAt' | 'createdBy'>>): Promise<Agent | null>;
  /** Soft delete: sets deletedAt; conversations are kept. */
  softDelete(organizationId: string, id: string, at: string): Promise<boolean>;
  slugExists(slug: string): Promise<boolean>;
  grantsFor(agentId: string, userId: string): Promise<ResourcePermission[]>;
  setGrant(grant: AgentGrant): Promise<void>;
}
