/**
 * Turns an uploaded file into text for chunking. `detect` runs at upload time, before anything is stored:
 * it is cheap (extension, declared MIME type and the bytes' headers only, no parsing) and rejects with
 * DomainError('UNSUPPORTED_MEDIA_TYPE') for an unknown extension or bytes that do not match the declared
 * type. `load` does the extraction in the worker; it throws DomainError('VALIDATION', 'No extractable
 * text ...') when nothing readable comes out and DomainError('NOT_CONFIGURED') when a format needs an
 * optional model (vision, transcription) that is not configured.
 */
import type { WorkAttribution } from './work-attribution';

export type DocumentKind = 'pdf' | 'docx' | 'doc' | 'text' | 'markdown' | 'csv' | 'html' | 'image' | 'audio' | 'video';

export interface LoadInput {
  bytes: Buffer;
  /** Original file name; its extension selects the format. */
  filename: string;
  /** Content type the client declared; empty or application/octet-stream means "trust the extension". */
  declaredMimeType?: string;
}

export interface LoadedImage {
  /** Where the image sits: the file name for an uploaded image, the `src` inside a document. */
  ref: string;
  mimeType: string;
  /** Caption or alt text. */
  description?: string;
}

export interface LoadedDocument {
  text: string;
  /** Canonical MIME type of the detected format. */
  mimeType: string;
  title?: string;
  images: LoadedImage[];
  metadata: Record<string, unknown>;
}

export interface DetectedKind {
  mimeType: string;
  kind: DocumentKind;
}

export interface DocumentLoader {
  /** Callers await it; a loader that needs no I/O may answer directly. */
  detect(input: LoadInput): DetectedKind | Promise<DetectedKind>;
  /**
   * Why files of this kind cannot be processed with the models configured now (an image without a vision
   * model), or null when they can. Checked at upload, so a file that can never succeed is refused (422).
   */
  missingModelFor?(kind: DocumentKind): string | null;
  /** `work`: whose work the parsing is, for a loader that parses in the heavy-work pool (its fair share). */
  load(input: LoadInput, work?: WorkAttribution): Promise<LoadedDocument>;
}
export const DOCUMENT_LOADER = Symbol.for('DocumentLoader');
