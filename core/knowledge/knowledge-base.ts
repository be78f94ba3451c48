import type { ResourcePermission } from '../identity/policy';

export type KnowledgeBaseVisibility = 'private' | 'shared' | 'public';
export const KNOWLEDGE_BASE_VISIBILITIES: readonly KnowledgeBaseVisibility[] = ['private', 'shared', 'public'];

/** Which embedding model and size the knowledge base's vectors use; fixed once it holds documents. */
export interface EmbeddingSettings {
  /** provider/name, as in the model catalogue. */
  model: string;
  dimensions: number;
}

export interface ChunkingSettings {
  size: number;
  overlap: number;
}

/** `settings` is an open object: these keys are read by the platform, others are kept as given. */
export interface KnowledgeBaseSettings extends Record<string, unknown> {
  embedding: EmbeddingSettings;
  chunking: ChunkingSettings;
}

export interface KnowledgeBase {
  id: string;
  organizationId: string;
  name: string;
  description: string;
  visibility: KnowledgeBaseVisibility;
  settings: KnowledgeBaseSettings;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export type KnowledgeBasePatch = Partial<Pick<KnowledgeBase, 'name' | 'description' | 'visibility' | 'settings' | 'updatedAt'>>;

/** An agent's use of a knowledge base. */
export interface AgentKnowledgeLink {
  agentId: string;
  knowledgeBaseId: string;
  organizationId: string;
  /** What the agent may do with the knowledge base (free-form flags, e.g. {read: true}). */
  permissions: Record<string, unknown>;
  /** Higher first when an agent has several knowledge bases. */
  priority: number;
  linkedAt: string;
  linkedBy: string | null;
}

export interface FailedSource {
  sourceId: string;
  sourceUrl: string;
  lastSyncError: string;
}

export interface KnowledgeBaseStats {
  knowledgeBaseId: string;
  documentCount: number;
  completedDocumentCount: number;
  sourceCount: number;
  failedSources: FailedSource[];
}

export interface KnowledgeBaseRepository {
  create(kb: KnowledgeBase): Promise<void>;
  findById(organizationId: string, id: string): Promise<KnowledgeBase | null>;
  /** Any organization's knowledge base: platform administration only (never on a request path). */
  findAnyById(id: string): Promise<KnowledgeBase | null>;
  findMany(organizationId: string, ids: string[]): Promise<KnowledgeBase[]>;
  list(organizationId: string, page: { limit: number; offset: number }): Promise<{ items: KnowledgeBase[]; total: number }>;
  count(organizationId: string): Promise<number>;
  update(organizationId: string, id: string, patch: KnowledgeBasePatch): Promise<KnowledgeBase | null>;
  /** Hard delete; documents, sources, links and search log rows go with it (foreign keys cascade). */
  delete(organizationId: string, id: string): Promise<boolean>;
  /** Serialises plan-limit checks of one organization inside a transaction. */
  lockOrganization(organizationId: string): Promise<void>;
  /** The user's explicit grants on the knowledge base (empty when none). */
  grantsFor(knowledgeBaseId: string, userId: string): Promise<ResourcePermission[]>;
  /** Upsert; an empty list removes the grant. */
  setGrant(knowledgeBaseId: string, userId: string, permissions: ResourcePermission[]): Promise<void>;
  /** Document and source counts plus failing sources (a source with a last sync error) per knowledge base. */
  stats(organizationId: string, ids: string[]): Promise<KnowledgeBaseStats[]>;
}

export interface LinkedKnowledgeBase {
  knowledgeBase: KnowledgeBase;
  link: AgentKnowledgeLink;
}

export interface AgentSummary {
  id: string;
  name: string;
}

export interface AgentKnowledgeLinkRepository {
  /** Creates the link or updates its permissions and priority. */
  upsert(link: AgentKnowledgeLink): Promise<void>;
  remove(organizationId: string, agentId: string, knowledgeBaseId: string): Promise<boolean>;
  find(organizationId: string, agentId: string, knowledgeBaseId: string): Promise<AgentKnowledgeLink | null>;
  /** The agent's knowledge bases, priority first, then name. */
  listForAgent(organizationId: string, agentId: string, options?: { limit?: number }): Promise<LinkedKnowledgeBase[]>;
  countForAgent(organizationId: string, agentId: string): Promise<number>;
  /** Other live (not soft-deleted) agents per knowledge base: a count and the first `sampleSize` by name. */
  otherAgents(
    organizationId: string,
    knowledgeBaseIds: string[],
    exceptAgentId: string,
    sampleSize: number,
  ): Promise<Map<string, { count: number; sample: AgentSummary[] }>>;
}

/** What a caller may do on a knowledge base (no per-KB grants yet: the organization role decides). */
export type KnowledgeBasePermission = Extract<ResourcePermission, 'read' | 'edit' | 'delete'>;
