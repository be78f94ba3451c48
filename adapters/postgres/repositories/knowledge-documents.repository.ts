import type { DocumentPatch, DocumentRepository, KnowledgeDocument, ProcessingStatus } from '../../../core/knowledge/document';
import type { DbHandle } from '../db-handle';
import { iso, isoOrNull } from './rows';

const toDocument = (r: Record<string, unknown>): KnowledgeDocument => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  knowledgeBaseId: r.knowledge_base_id as string,
  title: r.title as string,
  mimeType: r.mime_type as string,
  fileSizeBytes: Number(r.file_size_bytes),
  processingStatus: r.processing_status as ProcessingStatus,
  error: (r.error as string | null) ?? null,
  chunkCount: Number(r.chunk_count),
  blobKey: (r.blob_key as string | null) ?? null,
  contentHash: (r.content_hash as string | null) ?? null,
  sourceId: (r.source_id as string | null) ?? null,
  sourceItemKey: (r.source_item_key as string | null) ?? null,
  summary: (r.summary as string | null) ?? null,
  topics: (r.topics as string[]) ?? [],
  metadata: (r.metadata as Record<string, unknown>) ?? {},
  jobId: (r.job_id as string | null) ?? null,
  createdBy: (r.created_by as string | null) ?? null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  processedAt: isoOrNull(r.processed_at),
});

const columns: Record<keyof DocumentPatch, [string, boolean]> = {
  title: ['title', false],
  mimeType: ['mime_type', false],
  fileSizeBytes: ['file_size_bytes', false],
  processingStatus: ['processing_status', false],
  error: ['error', false],
  chunkCount: ['chunk_count', false],
  blobKey: ['blob_key', false],
  contentHash: ['content_hash', false],
  summary: ['summary', false],
  topics: ['topics', true],
  metadata: ['metadata', true],
  jobId: ['job_id', false],
  updatedAt: ['updated_at', false],
  processedAt: ['processed_at', false],
};

function toRow(patch: DocumentPatch) {
  const row: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(patch)) {
    const col = columns[k as keyof DocumentPatch];
    if (col && v !== undefined) row[col[0]] = col[1] ? JSON.stringify(v) : v;
  }
  return row;
}

export class KnexDocumentRepository implements DocumentRepository {
  constructor(private readonly db: DbHandle) {}

  async create(d: KnowledgeDocument) {
    await this.db()('knowledge_documents').insert({
      id: d.id,
      organization_id: d.organizationId,
      knowledge_base_id: d.knowledgeBaseId,
      source_id: d.sourceId,
      source_item_key: d.sourceItemKey,
      created_by: d.createdBy,
      created_at: d.createdAt,
      ...toRow(d),
    });
  }

  async findById(organizationId: string, id: string) {
    const r = await this.db()('knowledge_documents').where({ id, organization_id: organizationId }).first();
    return r ? toDocument(r) : null;
  }

  async findBySourceItem(organizationId: string, sourceId: string, itemKey: string) {
    const r = await this.db()('knowledge_documents')
      .where({ organization_id: organizationId, source_id: sourceId, source_item_key: itemKey })
      .orderBy('created_at')
      .first();
    return r ? toDocument(r) : null;
  }

  async findUploadByContentHash(organizationId: string, knowledgeBaseId: string, contentHash: string) {
    const r = await this.db()('knowledge_documents')
      .where({ organization_id: organizationId, knowledge_base_id: knowledgeBaseId, content_hash: contentHash })
      .whereNull('source_id')
      .orderBy('created_at')
      .first();
    return r ? toDocument(r) : null;
  }

  async findMany(organizationId: string, ids: string[]) {
    if (ids.length === 0) return [];
    const rows = await this.db()('knowledge_documents').where({ organization_id: organizationId }).whereIn('id', ids);
    return rows.map(toDocument);
  }

  async list(organizationId: string, knowledgeBaseId: string, page: { limit: number; offset: number; status?: ProcessingStatus }) {
    const base = () => {
      const q = this.db()('knowledge_documents').where({ organization_id: organizationId, knowledge_base_id: knowledgeBaseId });
      if (page.status) q.where({ processing_status: page.status });
      return q;
    };
    const [{ n }] = await base().count({ n: '*' });
    const rows = await base().orderBy('created_at', 'desc').orderBy('id').limit(page.limit).offset(page.offset);
    return { items: rows.map(toDocument), total: Number(n) };
  }

  async update(organizationId: string, id: string, patch: DocumentPatch) {
    const row = toRow(patch);
    if (Object.keys(row).length === 0) return this.findById(organizationId, id);
    const [r] = await this.db()('knowledge_documents').where({ id, organization_id: organizationId }).update(row).returning('*');
    return r ? toDocument(r) : null;
  }

  async transition(
    organizationId: string,
    id: string,
    from: ProcessingStatus[],
    to: ProcessingStatus,
    patch: DocumentPatch = {},
    guard: { jobId?: string } = {},
  ) {
    const [r] = await this.db()('knowledge_documents')
      .where({ id, organization_id: organizationId })
      .whereIn('processing_status', from)
      .modify((q) => {
        if (guard.jobId) q.where({ job_id: guard.jobId });
      })
      .update({ ...toRow(patch), processing_status: to })
      .returning('*');
    return r ? toDocument(r) : null;
  }

  async delete(organizationId: string, id: string) {
    return (await this.db()('knowledge_documents').where({ id, organization_id: organizationId }).delete()) === 1;
  }

  async blobKeys(organizationId: string, knowledgeBaseId: string) {
    const rows = await this.db()('knowledge_documents')
      .where({ organization_id: organizationId, knowledge_base_id: knowledgeBaseId })
      .whereNotNull('blob_key')
      .select('blob_key');
    return rows.map((r: { blob_key: string }) => r.blob_key);
  }

  async map(organizationId: string, knowledgeBaseId: string) {
    const rows = await this.db()('knowledge_documents')
      .where({ organization_id: organizationId, knowledge_base_id: knowledgeBaseId, processing_status: 'completed' })
      .orderBy('title')
      .orderBy('id')
      .select('id', 'title', 'summary', 'topics', 'chunk_count');
    return rows.map((r: Record<string, unknown>) => ({
      documentId: r.id as string,
      title: r.title as string,
      summary: (r.summary as string | null) ?? null,
      topics: (r.topics as string[]) ?? [],
      chunkCount: Number(r.chunk_count),
    }));
  }
}
