/**
 * The knowledge graph of knowledge bases (spec 2.7, 4.8): entities with aliases, mentions with chunk-level
 * provenance, typed weighted relationships per document, pinned entities and optimisation suggestions.
 * Every call is scoped to an organization and a knowledge base. Lookup keys (folded names) are computed by
 * the core (core/graph/names.ts); the store only matches them. Default adapter: tables in the relational
 * Postgres (GRAPH_STORE=postgres).
 */
export interface GraphEntity {
  id: string;
  organizationId: string;
  knowledgeBaseId: string;
  name: string;
  type: string;
  aliases: string[];
  description: string | null;
  /** 0-1: how sure extraction was (pinned entities 1). */
  confidence: number;
  hidden: boolean;
  /** Derived from the mentions: always true after any change. */
  mentionCount: number;
  documentIds: string[];
  createdAt: string;
  updatedAt: string;
}

export interface GraphRelationship {
  id: string;
  knowledgeBaseId: string;
  sourceEntityId: string;
  targetEntityId: string;
  type: string;
  weight: number;
  documentId: string;
  chunkIndex: number;
  /** The sentence that states it (shown when the relationship finds content). */
  evidence: string | null;
  createdAt: string;
}

/** What extraction found in one document, entities named by their lookup keys. */
export interface DocumentGraph {
  entities: {
    /** The folded canonical name (first key) and folded aliases. */
    keys: string[];
    name: string;
    type: string;
    aliases: string[];
    confidence: number;
    mentions: { chunkIndex: number; count: number }[];
  }[];
  relationships: { sourceKey: string; targetKey: string; type: string; weight: number; chunkIndex: number; evidence?: string }[];
}

export interface GraphScope {
  organizationId: string;
  knowledgeBaseId: string;
}

export interface EntityFilter {
  type?: string;
  /** Case-insensitive substring of the name or an alias. */
  search?: string;
  documentId?: string;
  limit: number;
  offset: number;
}

export interface PinnedEntity {
  name: string;
  type: string;
  aliases: string[];
}

export type SuggestionStatus = 'pending' | 'approved' | 'rejected' | 'applied';
export type SuggestionType = 'duplicate' | 'remove' | 'rename' | 'orphan' | 'needs_review' | 'low_confidence';

export interface GraphSuggestion {
  id: string;
  knowledgeBaseId: string;
  type: SuggestionType;
  status: SuggestionStatus;
  entityIds: string[];
  /** duplicate: {canonicalEntityId}; rename: {newName}. */
  payload: Record<string, unknown>;
  reason: string;
  confidence: number;
  resolvedBy: 'user' | 'ai' | null;
  createdAt: string;
  updatedAt: string;
}

export interface GraphStats {
  totalEntities: number;
  totalRelationships: number;
  entitiesByType: Record<string, number>;
}

export interface GraphStore {
  readonly id: string;
  /** Replaces what the document contributed (mentions, relationships); entities resolve by key; orphans go. */
  replaceDocument(
    scope: GraphScope & { documentId: string },
    graph: DocumentGraph,
    now: string,
  ): Promise<{ entities: number; relationships: number }>;
  deleteByDocument(scope: GraphScope, documentId: string): Promise<void>;
  deleteByKnowledgeBase(scope: GraphScope): Promise<void>;

  listEntities(scope: GraphScope, filter: EntityFilter): Promise<{ items: GraphEntity[]; total: number }>;
  getEntities(scope: GraphScope, ids: string[]): Promise<GraphEntity[]>;
  /** Entities of any of the knowledge bases with one of these lookup keys (exact match). */
  findByKeys(organizationId: string, knowledgeBaseIds: string[], keys: string[]): Promise<GraphEntity[]>;
  /** Relationships touching any of the entities. */
  relationshipsOf(scope: GraphScope, entityIds: string[], limit: number): Promise<GraphRelationship[]>;
  /** Entities and relationships within `depth` hops of the seeds (recursive traversal, both directions). */
  neighbourhood(
    scope: GraphScope,
    seedIds: string[],
    depth: number,
    limit: number,
  ): Promise<{ entities: GraphEntity[]; relationships: GraphRelationship[] }>;
  stats(scope: GraphScope): Promise<GraphStats>;
  /** Entities with no relationship, for the issues listing. */
  orphanIds(scope: GraphScope): Promise<string[]>;

  /** Renames, keeping the old name as an alias and its key. Null when the entity is missing. */
  rename(scope: GraphScope, id: string, name: string, key: string, now: string): Promise<GraphEntity | null>;
  /** Merges into the canonical entity: aliases, keys, mentions; relationships re-pointed and de-duplicated. */
  merge(scope: GraphScope, canonicalId: string, mergeIds: string[], now: string): Promise<number>;
  deleteEntities(scope: GraphScope, ids: string[]): Promise<number>;

  getPinned(scope: GraphScope): Promise<PinnedEntity[]>;
  setPinned(scope: GraphScope, entities: PinnedEntity[], now: string): Promise<void>;

  /** Replaces the pending suggestions of the knowledge base (approved, rejected and applied are kept). */
  replacePendingSuggestions(scope: GraphScope, suggestions: GraphSuggestion[]): Promise<void>;
  listSuggestions(
    scope: GraphScope,
    filter: { status?: SuggestionStatus[]; type?: string; limit: number; offset: number },
  ): Promise<{ items: GraphSuggestion[]; total: number }>;
  getSuggestions(scope: GraphScope, ids: string[]): Promise<GraphSuggestion[]>;
  /** Moves a suggestion from one of `from` to `to`; null when missing or in another state. */
  setSuggestionStatus(
    scope: GraphScope,
    id: string,
    from: SuggestionStatus[],
    to: SuggestionStatus,
    resolvedBy: 'user' | 'ai' | null,
    now: string,
  ): Promise<GraphSuggestion | null>;
  suggestionCounts(scope: GraphScope): Promise<{ type: string; status: string; count: number }[]>;
  close(): Promise<void>;
}
export const GRAPH_STORE = Symbol.for('GraphStore');
