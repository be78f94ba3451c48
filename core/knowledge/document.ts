/** Spec 3.1: pending -> processing -> completed | failed; retry moves failed back to pending. */
export type ProcessingStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface KnowledgeDocument {
  id: string;
  organizationId: string;
  knowledgeBaseId: string;
  /** The file name (uploads) or the item title (sources). */
  title: string;
  mimeType: string;
  fileSizeBytes: number;
  processingStatus: ProcessingStatus;
  /** Why processing failed (null unless failed). */
  error: string | null;
  chunkCount: number;
  /** Where the original bytes are in the blob store (null for text ingested from a source). */
  blobKey: string | null;
  /** sha256 of the content that was (or will be) indexed; lets sources skip unchanged items. */
  contentHash: string | null;
  /** The source the document came from, and the item key within it. */
  sourceId: string | null;
  sourceItemKey: string | null;
  /** Short extractive summary and topics for the document map (set after processing). */
  summary: string | null;
  topics: string[];
  metadata: Record<string, unknown>;
  /** The latest ingestion job. */
  jobId: string | null;
  createdBy: string | null;
  createdAt: string;
  updatedAt: string;
  processedAt: string | null;
}

export type DocumentPatch = Partial<
  Pick<
    KnowledgeDocument,
    | 'title'
    | 'mimeType'
    | 'fileSizeBytes'
    | 'processingStatus'
    | 'error'
    | 'chunkCount'
    | 'blobKey'
    | 'contentHash'
    | 'summary'
    | 'topics'
    | 'metadata'
    | 'jobId'
    | 'updatedAt'
    | 'processedAt'
  >
>;

export interface DocumentMapEntry {
  documentId: string;
  title: string;
  summary: string | null;
  topics: string[];
  chunkCount: number;
}

export interface DocumentRepository {
  create(doc: KnowledgeDocument): Promise<void>;
  findById(organizationId: string, id: string): Promise<KnowledgeDocument | null>;
  findBySourceItem(organizationId: string, sourceId: string, itemKey: string): Promise<KnowledgeDocument | null>;
  /** The oldest uploaded (not source-made) document of the knowledge base whose bytes have this SHA-256. */
  findUploadByContentHash(organizationId: string, knowledgeBaseId: string, contentHash: string): Promise<KnowledgeDocument | null>;
  findMany(organizationId: string, ids: string[]): Promise<KnowledgeDocument[]>;
  list(
    organizationId: string,
    knowledgeBaseId: string,
    page: { limit: number; offset: number; status?: ProcessingStatus },
  ): Promise<{ items: KnowledgeDocument[]; total: number }>;
  update(organizationId: string, id: string, patch: DocumentPatch): Promise<KnowledgeDocument | null>;
  /**
   * Moves the document to `to` only when its status is one of `from` (compare-and-set); returns the
   * updated document, or null when it is gone, in another state, or (with `jobId`) owned by another job.
   */
  transition(
    organizationId: string,
    id: string,
    from: ProcessingStatus[],
    to: ProcessingStatus,
    patch?: DocumentPatch,
    guard?: { jobId?: string },
  ): Promise<KnowledgeDocument | null>;
  delete(organizationId: string, id: string): Promise<boolean>;
  /** Blob keys of every document of the knowledge base (for cleanup after a knowledge-base delete). */
  blobKeys(organizationId: string, knowledgeBaseId: string): Promise<string[]>;
  map(organizationId: string, knowledgeBaseId: string): Promise<DocumentMapEntry[]>;
}
