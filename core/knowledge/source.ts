/**
 * A URL or feed that feeds a knowledge base (spec 4.7). The knowledge area owns the table and the health
 * read-outs (agent link listings, delete impact); the sources area creates, syncs and updates rows.
 * Health rule: a source with a non-null `lastSyncError` is failing; clear it after a successful sync.
 */
export interface KnowledgeSource {
  id: string;
  organizationId: string;
  knowledgeBaseId: string;
  url: string;
  sourceType: string;
  /** maxItems, maxPages, crawlDepth, mediaEmbeddingStrategy, visualEntityExtraction... */
  options: Record<string, unknown>;
  syncEnabled: boolean;
  syncFrequencyMinutes: number;
  lastSyncedAt: string | null;
  nextSyncAt: string | null;
  lastSyncError: string | null;
  /** Free-form label the sync writes (`healthy`, `failing`, `syncing`...). */
  syncHealth: string;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
}

export type SourcePatch = Partial<
  Pick<
    KnowledgeSource,
    | 'url'
    | 'options'
    | 'syncEnabled'
    | 'syncFrequencyMinutes'
    | 'lastSyncedAt'
    | 'nextSyncAt'
    | 'lastSyncError'
    | 'syncHealth'
    | 'updatedAt'
  >
>;

/** What was ingested for one item of a source (an article, a post, a page). */
export interface SourceItem {
  sourceId: string;
  itemKey: string;
  contentHash: string;
  documentId: string | null;
}

export interface KnowledgeSourceRepository {
  create(source: KnowledgeSource): Promise<void>;
  findById(organizationId: string, id: string): Promise<KnowledgeSource | null>;
  listForKnowledgeBase(organizationId: string, knowledgeBaseId: string): Promise<KnowledgeSource[]>;
  /** Sources due for a sync at `now` (sync enabled, nextSyncAt passed), oldest first. */
  listDue(now: string, limit: number): Promise<KnowledgeSource[]>;
  update(organizationId: string, id: string, patch: SourcePatch): Promise<KnowledgeSource | null>;
  delete(organizationId: string, id: string): Promise<boolean>;
  findItem(sourceId: string, itemKey: string): Promise<SourceItem | null>;
  listItems(sourceId: string): Promise<SourceItem[]>;
  putItem(item: SourceItem): Promise<void>;
  deleteItem(sourceId: string, itemKey: string): Promise<boolean>;
}
