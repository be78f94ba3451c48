/**
 * Attachments a visitor uploads on the public surface (spec 2.9, 4.5; docs/contracts.md errata: "the service" means
 * "attachment"). An attachment belongs to one agent and one anonymous visitor; its per-upload access token is
 * returned once to the uploader and only its SHA-256 hash is stored. Text is extracted after upload and read by
 * the chat pipeline through the AttachmentResolver port.
 */

/** Allowed attachment kinds (spec 4.5): images, PDF, text, audio, video. */
export type AttachmentFileType = 'image' | 'pdf' | 'text' | 'audio' | 'video';

/** Attachment processingStatus (docs/contracts.md errata for spec 3.7). */
export type AttachmentStatus = 'pending' | 'processing' | 'completed' | 'failed';

export interface Attachment {
  id: string;
  organizationId: string;
  agentId: string;
  /** The visitor who uploaded it; null when uploaded by other means (reserved). */
  anonymousId: string | null;
  /** SHA-256 hex of the access token. */
  tokenHash: string;
  fileType: AttachmentFileType;
  originalFilename: string;
  fileSizeBytes: number;
  /** Canonical MIME type of the detected format. */
  contentType: string;
  processingStatus: AttachmentStatus;
  blobKey: string;
  /** Extracted text (null until completed; '' when the file has none). */
  extractedText: string | null;
  /** Why extraction failed; null otherwise. */
  error: string | null;
  createdAt: string;
  updatedAt: string;
  processedAt: string | null;
}

export interface AttachmentRepository {
  create(attachment: Attachment): Promise<void>;
  findById(id: string): Promise<Attachment | null>;
  /**
   * Moves the status only when it is one of `from` (a redelivered job does not redo finished work); returns
   * the updated attachment or null when the move did not apply.
   */
  transition(
    id: string,
    from: AttachmentStatus[],
    to: AttachmentStatus,
    patch?: Partial<Pick<Attachment, 'extractedText' | 'error' | 'processedAt'>> & { updatedAt: string },
  ): Promise<Attachment | null>;
}

/** The public attachment object (spec 2.9). `accessToken` is only present in the upload response. */
export interface AttachmentView {
  id: string;
  accessToken?: string;
  fileType: AttachmentFileType;
  originalFilename: string;
  fileSizeBytes: number;
  contentType: string;
  processingStatus: AttachmentStatus;
  createdAt: string;
}

export function toAttachmentView(a: Attachment, accessToken?: string): AttachmentView {
  return {
    id: a.id,
    ...(accessToken !== undefined ? { accessToken } : {}),
    fileType: a.fileType,
    originalFilename: a.originalFilename,
    fileSizeBytes: a.fileSizeBytes,
    contentType: a.contentType,
    processingStatus: a.processingStatus,
    createdAt: a.createdAt,
  };
}
