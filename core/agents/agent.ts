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
  /** When the agent last entered pending_review. */
  submittedAt: string | null;
  /** Who approved or rejected it last, and when. */
  reviewedBy: string | null;
  reviewedAt: string | null;
  /** When it last became published (null while never published). */
  publishedAt: string | null;
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

export type AgentPatch = Partial<Omit<Agent, 'id' | 'organizationId' | 'createdAt' | 'createdBy'>>;

/** Agents are always read within one organization; deleted agents are invisible unless asked for. */
export interface AgentRepository {
  create(agent: Agent): Promise<void>;
  findById(organizationId: string, id: string, options?: { includeDeleted?: boolean }): Promise<Agent | null>;
  /**
   * Like findById, and holds a row lock until the transaction ends: serialises updates, version numbering
   * and prompt-config saves of one agent. Call it inside `store.transaction`.
   */
  lockForUpdate(organizationId: string, id: string): Promise<Agent | null>;
  /** Serialises plan-limit checks of one organization inside a transaction. */
  lockOrganization(organizationId: string): Promise<void>;
  findBySlug(slug: string): Promise<Agent | null>;
  list(organizationId: string, page: { limit: number; offset: number }): Promise<{ items: Agent[]; total: number }>;
  /** Published, distributed agents without membership or group restrictions, newest published first. */
  listMarketplace(page: { limit: number; offset: number }): Promise<{ items: Agent[]; total: number }>;
  countLive(organizationId: string): Promise<number>;
  /** Throws CONFLICT when a unique value (the slug) is taken. */
  update(organizationId: string, id: string, patch: AgentPatch): Promise<Agent | null>;
  /** Soft delete: sets deletedAt; conversations are kept. */
  softDelete(organizationId: string, id: string, at: string): Promise<boolean>;
  /** True when any agent, deleted ones included, holds the slug (slugs are never reused). */
  slugExists(slug: string): Promise<boolean>;
  grantsFor(agentId: string, userId: string): Promise<ResourcePermission[]>;
  listGrants(agentId: string): Promise<AgentGrant[]>;
  /** Upsert; an empty permission list removes the grant. */
  setGrant(grant: AgentGrant): Promise<void>;
}
