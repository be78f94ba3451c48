import type { BlobStore } from '../ports/blob-store';
import type { Clock } from '../ports/clock';
import type { DocumentLoader } from '../ports/document-loader';
import type { IdGenerator } from '../ports/id-generator';
import type { JobQueue } from '../ports/job-queue';
import type { Store } from '../ports/store';

/** Queue of attachment text extraction (payload: AttachmentJobPayload). */
export const ATTACHMENT_QUEUE = 'attachments.extract';

export interface AttachmentJobPayload {
  attachmentId: string;
  /** The uploader's address as its work budget knows it (WorkPayer.ipKey); absent on older jobs. */
  ipKey?: string;
}

/** Who pays for an attachment's extraction: the anonymous visitor, and the address it came from. */
export interface WorkPayer {
  anonymousId: string;
  /** A hash of the client IP (never the address itself: it travels in the job payload). */
  ipKey?: string;
}

/**
 * Thread time of extraction allowed per visitor and per address in a window (core/public-chat/work-budget.ts):
 * counted in the thread-milliseconds the heavy-work pool measured, not in files.
 */
export interface AttachmentWorkBudget {
  /** Throws RATE_LIMITED (with retryAfterSeconds) when the visitor or the address has used its budget. */
  admit(payer: WorkPayer): Promise<void>;
  /** Counts `threadMs` of work done for `payer`. */
  charge(payer: WorkPayer, threadMs: number): Promise<void>;
}

export interface AttachmentSettings {
  /** Largest accepted attachment (PUBLIC_ATTACHMENT_MAX_BYTES); larger: 413. */
  maxBytes: number;
  /**
   * Text files (plain, Markdown, CSV, HTML) up to this size are extracted during the upload request, so the
   * upload answers `completed`; everything else (PDF, images, audio, video, bigger text) goes to the queue
   * and answers `pending`.
   */
  inlineTextMaxBytes: number;
  /** Extracted text kept per attachment (and so given to the model); the rest is cut. */
  textMaxChars: number;
}

export const DEFAULT_ATTACHMENT_SETTINGS: Omit<AttachmentSettings, 'maxBytes'> = {
  inlineTextMaxBytes: 512 * 1024,
  textMaxChars: 50_000,
};

export type AttachmentLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;

export interface AttachmentDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  blobs: BlobStore;
  queue: JobQueue;
  loader: DocumentLoader;
  settings: AttachmentSettings;
  /** Absent: extraction is not budgeted (the pool's fair share still bounds it). */
  workBudget?: AttachmentWorkBudget;
  log?: AttachmentLog;
}
