import { timingSafeEqual } from 'node:crypto';

import type { AttachmentResolver, ResolvedAttachment } from '../ports/attachment-resolver';
import type { Store } from '../ports/store';
import { DomainError } from '../shared/errors';
import { sha256Hex } from '../shared/hash';
import type { Attachment } from './attachment';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

function tokenMatches(a: Attachment, accessToken: string): boolean {
  const given = Buffer.from(sha256Hex(accessToken), 'hex');
  const stored = Buffer.from(a.tokenHash, 'hex');
  return given.length === stored.length && timingSafeEqual(given, stored);
}

/**
 * The chat pipeline's AttachmentResolver over the attachment store. A reference resolves only with the
 * upload's access token, for the agent (and organization) it was uploaded to and, when the resolver is bound
 * to a visitor (`forVisitor`), for that visitor's anonymousId; anything else is "not found" (the pipeline
 * answers 400). Text still being extracted is a 409 (retry shortly); a failed extraction resolves with empty
 * text (the model is told nothing about the file's content).
 */
export class StoredAttachmentResolver implements AttachmentResolver {
  constructor(
    private readonly store: Store,
    private readonly anonymousId: string | null = null,
  ) {}

  /** The same resolver, accepting only attachments uploaded by this visitor. */
  forVisitor(anonymousId: string): StoredAttachmentResolver {
    return new StoredAttachmentResolver(this.store, anonymousId);
  }

  async resolve(ref: { organizationId: string; agentId: string; id: string; accessToken: string }): Promise<ResolvedAttachment | null> {
    if (!UUID.test(ref.id)) return null;
    const a = await this.store.repos.attachments.findById(ref.id);
    if (!a || a.organizationId !== ref.organizationId || a.agentId !== ref.agentId) return null;
    if (this.anonymousId !== null && a.anonymousId !== this.anonymousId) return null;
    if (!tokenMatches(a, ref.accessToken)) return null;
    if (a.processingStatus === 'pending' || a.processingStatus === 'processing') {
      throw new DomainError('INVALID_STATE', `The text of attachment ${a.id} is still being extracted; try again in a moment`, {
        attachmentId: a.id,
        processingStatus: a.processingStatus,
      });
    }
    return {
      id: a.id,
      filename: a.originalFilename,
      mimeType: a.contentType,
      text: a.processingStatus === 'completed' ? (a.extractedText ?? '') : '',
    };
  }
}
