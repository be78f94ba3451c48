import type { Attachment, AttachmentRepository, AttachmentStatus } from '../../../core/attachments/attachment';
import type { DbHandle } from '../db-handle';
import { iso, isoOrNull } from './rows';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const toAttachment = (r: Record<string, unknown>): Attachment => ({
  id: r.id as string,
  organizationId: r.organization_id as string,
  agentId: r.agent_id as string,
  anonymousId: (r.anonymous_id as string | null) ?? null,
  tokenHash: r.token_hash as string,
  fileType: r.file_type as Attachment['fileType'],
  originalFilename: r.original_filename as string,
  fileSizeBytes: Number(r.file_size_bytes),
  contentType: r.content_type as string,
  processingStatus: r.processing_status as AttachmentStatus,
  blobKey: r.blob_key as string,
  extractedText: (r.extracted_text as string | null) ?? null,
  error: (r.error as string | null) ?? null,
  createdAt: iso(r.created_at),
  updatedAt: iso(r.updated_at),
  processedAt: isoOrNull(r.processed_at),
});

/** Public-chat attachments (table of migration 0007). */
export class KnexAttachmentRepository implements AttachmentRepository {
  constructor(private readonly db: DbHandle) {}

  async create(a: Attachment) {
    await this.db()('attachments').insert({
      id: a.id,
      organization_id: a.organizationId,
      agent_id: a.agentId,
      anonymous_id: a.anonymousId,
      token_hash: a.tokenHash,
      file_type: a.fileType,
      original_filename: a.originalFilename,
      file_size_bytes: a.fileSizeBytes,
      content_type: a.contentType,
      processing_status: a.processingStatus,
      blob_key: a.blobKey,
      extracted_text: a.extractedText,
      error: a.error,
      created_at: a.createdAt,
      updated_at: a.updatedAt,
      processed_at: a.processedAt,
    });
  }

  async findById(id: string) {
    if (!UUID.test(id)) return null;
    const r = await this.db()('attachments').where({ id }).first();
    return r ? toAttachment(r) : null;
  }

  async transition(
    id: string,
    from: AttachmentStatus[],
    to: AttachmentStatus,
    patch?: Partial<Pick<Attachment, 'extractedText' | 'error' | 'processedAt'>> & { updatedAt: string },
  ) {
    if (!UUID.test(id)) return null;
    const row: Record<string, unknown> = { processing_status: to };
    if (patch?.extractedText !== undefined) row.extracted_text = patch.extractedText;
    if (patch?.error !== undefined) row.error = patch.error;
    if (patch?.processedAt !== undefined) row.processed_at = patch.processedAt;
    if (patch?.updatedAt !== undefined) row.updated_at = patch.updatedAt;
    const [r] = await this.db()('attachments').where({ id }).whereIn('processing_status', from).update(row).returning('*');
    return r ? toAttachment(r) : null;
  }
}
