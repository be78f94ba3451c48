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
  log?: AttachmentLog;
}
