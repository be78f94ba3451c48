/**
 * `POST /api/public/agents/:slug/attachments` and the status read of one attachment. The upload checks
 * (uploads enabled: 403; rate limits: 429) run before the request body is read; see
 * core/attachments/upload-attachment.ts for size (413), type (415) and extraction.
 */
import type { Agent } from '../agents/agent';
import { toAttachmentView } from '../attachments/attachment';
import { type AttachmentUpload, uploadAttachment } from '../attachments/upload-attachment';
import { DomainError } from '../shared/errors';
import { sha256Hex } from '../shared/hash';
import { requireUploadsEnabled } from './public-chat';
import type { PublicChatDeps } from './public-chat-deps';
import { enforcePublicRateLimit } from './rate-limits';
import { requireAnonymousId } from './visitor';
import { ipKeyOf } from './work-budget';

/**
 * Runs before the file is read: agent accepts uploads, visitor id valid, rate limits, then the work budget
 * (thread-seconds of extraction per visitor and per address: work-budget.ts), so a spent budget is a 429
 * before any byte is parsed.
 */
export async function admitPublicUpload(deps: PublicChatDeps, agent: Agent, anonymousId: unknown, clientIp: string): Promise<string> {
  const visitor = requireAnonymousId(anonymousId);
  requireUploadsEnabled(agent);
  await enforcePublicRateLimit(deps, 'uploads', { anonymousId: visitor, clientIp });
  await deps.attachments.workBudget?.admit({ anonymousId: visitor, ipKey: ipKeyOf(clientIp) });
  return visitor;
}

/** `clientIp`: the uploader's address, charged with the extraction's thread time beside the visitor. */
export async function storePublicAttachment(
  deps: PublicChatDeps,
  agent: Agent,
  anonymousId: string,
  file: AttachmentUpload,
  clientIp = '',
) {
  return uploadAttachment(deps.attachments, agent, anonymousId, file, ipKeyOf(clientIp));
}

/**
 * `GET .../attachments/:attachmentId` (header X-Attachment-Token): the attachment object without its token,
 * to follow processingStatus. Another visitor, agent or token: 404.
 */
export async function getPublicAttachment(
  deps: PublicChatDeps,
  agent: Agent,
  anonymousId: unknown,
  attachmentId: string,
  accessToken: unknown,
) {
  const visitor = requireAnonymousId(anonymousId);
  const a = await deps.attachments.store.repos.attachments.findById(attachmentId);
  const ok =
    a && a.agentId === agent.id && a.anonymousId === visitor && typeof accessToken === 'string' && sha256Hex(accessToken) === a.tokenHash;
  if (!ok) throw new DomainError('NOT_FOUND', 'Attachment not found');
  return { attachment: toAttachmentView(a) };
}
