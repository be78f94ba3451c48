import { workTenant } from '../ports/heavy-work';
import type { Job } from '../ports/job-queue';
import { isDomainError } from '../shared/errors';
import type { Attachment } from './attachment';
import type { AttachmentDeps, AttachmentJobPayload, WorkPayer } from './attachment-deps';

/** Attempts of one extraction job (transient provider failures) before the attachment is marked failed. */
export const ATTACHMENT_MAX_ATTEMPTS = 3;

/** Bad, empty or oversized files (bombs) and missing optional models (vision, transcription) will not get better on a retry. */
const isPermanent = (e: unknown) =>
  isDomainError(e) && ['VALIDATION', 'NOT_CONFIGURED', 'UNSUPPORTED_MEDIA_TYPE', 'PAYLOAD_TOO_LARGE'].includes(e.code);

const reason = (e: unknown) => (isDomainError(e) ? e.message : 'Text extraction failed unexpectedly');

/**
 * pending (or processing, on a redelivered job) -> processing -> completed with the extracted text, or failed
 * with the reason. Finished attachments are left alone, so the job is idempotent. A transient failure before
 * the final attempt puts the attachment back to pending and rethrows (the queue retries with backoff).
 */
export async function extractAttachment(
  deps: AttachmentDeps,
  attachmentId: string,
  options: { bytes?: Buffer; finalAttempt: boolean; ipKey?: string },
): Promise<Attachment | null> {
  const repo = deps.store.repos.attachments;
  const now = () => deps.clock.now().toISOString();
  const started = await repo.transition(attachmentId, ['pending', 'processing'], 'processing', { updatedAt: now() });
  if (!started) return repo.findById(attachmentId);
  const payer: WorkPayer | null = started.anonymousId ? { anonymousId: started.anonymousId, ipKey: options.ipKey } : null;
  let threadMs = 0;
  try {
    // uploads admitted in a burst, before any of their work was measured, stop here once the budget is used
    if (payer && deps.workBudget) await deps.workBudget.admit(payer);
    const bytes = options.bytes ?? (await deps.blobs.get(started.blobKey));
    const loaded = await deps.loader.load(
      { bytes, filename: started.originalFilename, declaredMimeType: started.contentType },
      {
        tenant: workTenant(started.organizationId),
        party: payer ? `visitor:${payer.anonymousId}` : '',
        charge: (ms) => (threadMs += ms),
      },
    );
    const text = loaded.text.slice(0, deps.settings.textMaxChars);
    return await repo.transition(attachmentId, ['processing'], 'completed', {
      extractedText: text,
      error: null,
      processedAt: now(),
      updatedAt: now(),
    });
  } catch (e) {
    if (isDomainError(e) && e.code === 'RATE_LIMITED') {
      deps.log?.('info', `attachment ${attachmentId}: refused, the visitor's processing budget is used up`);
      return repo.transition(attachmentId, ['processing'], 'failed', { error: e.message, processedAt: now(), updatedAt: now() });
    }
    if (!options.finalAttempt && !isPermanent(e)) {
      deps.log?.('warn', `attachment ${attachmentId}: extraction failed, will retry`, e);
      await repo.transition(attachmentId, ['processing'], 'pending', { updatedAt: now() });
      throw e;
    }
    deps.log?.(isPermanent(e) ? 'info' : 'warn', `attachment ${attachmentId}: extraction failed`, e);
    return repo.transition(attachmentId, ['processing'], 'failed', { error: reason(e), processedAt: now(), updatedAt: now() });
  } finally {
    // failed work was work too: a bomb stopped by a bound costs its thread time
    if (payer && deps.workBudget && threadMs > 0) {
      await deps.workBudget.charge(payer, threadMs).catch((e) => deps.log?.('warn', `attachment ${attachmentId}: work not counted`, e));
    }
  }
}

/** The worker of `attachments.extract`. */
export async function processAttachmentJob(deps: AttachmentDeps, job: Job<AttachmentJobPayload>): Promise<void> {
  await extractAttachment(deps, job.payload.attachmentId, {
    finalAttempt: job.attempt >= ATTACHMENT_MAX_ATTEMPTS,
    ipKey: job.payload.ipKey,
  });
}
