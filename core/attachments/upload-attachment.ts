import type { Agent } from '../agents/agent';
import { safeFilename } from '../knowledge/documents';
import type { DocumentKind } from '../ports/document-loader';
import { DomainError } from '../shared/errors';
import { sha256Hex } from '../shared/hash';
import { type Attachment, type AttachmentFileType, toAttachmentView } from './attachment';
import { ATTACHMENT_QUEUE, type AttachmentDeps, type AttachmentJobPayload } from './attachment-deps';
import { extractAttachment } from './extract-attachment';

/** Loader kinds accepted as attachments and the fileType they get; Word documents are not an allowed kind. */
const KINDS: Partial<Record<DocumentKind, AttachmentFileType>> = {
  pdf: 'pdf',
  text: 'text',
  markdown: 'text',
  csv: 'text',
  html: 'text',
  image: 'image',
  audio: 'audio',
  video: 'video',
};

export interface AttachmentUpload {
  filename: string;
  declaredMimeType?: string;
  bytes: Buffer;
}

export const attachmentBlobKey = (a: Pick<Attachment, 'organizationId' | 'id'>, filename: string) =>
  `${a.organizationId}/attachments/${a.id}/${filename}`;

/**
 * Stores an attachment for an anonymous visitor of `agent` (the caller has checked that uploads are enabled).
 * Size (413), then type: extension, declared type and magic numbers must agree and the kind must be an allowed
 * one (415). Small text files are extracted at once (`completed`); the rest is queued (`pending`). Returns the
 * attachment object with its access token, which is shown only here.
 */
export async function uploadAttachment(
  deps: AttachmentDeps,
  agent: Agent,
  anonymousId: string,
  file: AttachmentUpload,
  /** The uploader's address for its work budget (WorkPayer.ipKey). */
  ipKey?: string,
) {
  if (file.bytes.length > deps.settings.maxBytes)
    throw new DomainError('PAYLOAD_TOO_LARGE', `The file is larger than the ${deps.settings.maxBytes} bytes allowed`);
  if (file.bytes.length === 0) throw new DomainError('VALIDATION', 'The file is empty');
  const filename = safeFilename(file.filename);
  const { mimeType, kind } = await deps.loader.detect({ bytes: file.bytes, filename, declaredMimeType: file.declaredMimeType });
  const fileType = KINDS[kind];
  if (!fileType)
    throw new DomainError('UNSUPPORTED_MEDIA_TYPE', `${filename} is not an allowed attachment kind (images, PDF, text, audio, video)`, {
      kind,
    });

  const now = deps.clock.now().toISOString();
  const id = deps.ids.uuid();
  const accessToken = deps.ids.secret(32);
  const attachment: Attachment = {
    id,
    organizationId: agent.organizationId,
    agentId: agent.id,
    anonymousId,
    tokenHash: sha256Hex(accessToken),
    fileType,
    originalFilename: filename,
    fileSizeBytes: file.bytes.length,
    contentType: mimeType,
    processingStatus: 'pending',
    blobKey: attachmentBlobKey({ organizationId: agent.organizationId, id }, filename),
    extractedText: null,
    error: null,
    createdAt: now,
    updatedAt: now,
    processedAt: null,
  };
  await deps.blobs.put(attachment.blobKey, file.bytes, mimeType);
  try {
    await deps.store.repos.attachments.create(attachment);
  } catch (e) {
    await deps.blobs.delete(attachment.blobKey).catch(() => undefined);
    throw e;
  }

  if (fileType === 'text' && file.bytes.length <= deps.settings.inlineTextMaxBytes) {
    const done = await extractAttachment(deps, id, { bytes: file.bytes, finalAttempt: true, ipKey });
    return { attachment: toAttachmentView(done ?? attachment, accessToken) };
  }
  try {
    const payload: AttachmentJobPayload = ipKey ? { attachmentId: id, ipKey } : { attachmentId: id };
    await deps.queue.enqueue<AttachmentJobPayload>(ATTACHMENT_QUEUE, payload, { jobId: `attachment-${id}` });
  } catch (e) {
    await deps.store.repos.attachments.transition(id, ['pending'], 'failed', {
      error: 'The extraction job could not be queued',
      updatedAt: deps.clock.now().toISOString(),
    });
    throw e;
  }
  return { attachment: toAttachmentView(attachment, accessToken) };
}
