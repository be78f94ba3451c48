import type { LoadedImage } from '../../core/ports/document-loader';
import { DomainError, isDomainError } from '../../core/shared/errors';
import type { FileFormat } from './file-types';

/** What a format loader receives once the file has passed `detectFile`. */
export interface FormatLoadContext {
  bytes: Buffer;
  filename: string;
  format: FileFormat;
  /** Canonical MIME type of the format. */
  mimeType: string;
}

export interface ExtractedContent {
  text: string;
  title?: string;
  images?: LoadedImage[];
  metadata?: Record<string, unknown>;
}

export type FormatLoader = (context: FormatLoadContext) => Promise<ExtractedContent>;

/** UTF-8 text without its byte-order mark. */
export function decodeUtf8(bytes: Buffer): string {
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** Runs a parser and turns its failures into a VALIDATION error that names the file. */
export async function parseOrFail<T>(context: FormatLoadContext, what: string, parse: () => Promise<T>): Promise<T> {
  try {
    return await parse();
  } catch (error) {
    if (isDomainError(error)) throw error;
    const reason = error instanceof Error ? error.message : String(error);
    throw new DomainError('VALIDATION', `"${context.filename}" could not be read as ${what}: ${reason}`, {
      filename: context.filename,
      format: context.format,
    });
  }
}

/** Best MIME type for an image reference, from a data: URI or the file extension. */
export function imageMimeType(ref: string): string {
  const data = /^data:([^;,]+)/i.exec(ref);
  if (data) return data[1].toLowerCase();
  const ext = /\.([a-z0-9]+)(?:[?#].*)?$/i.exec(ref)?.[1]?.toLowerCase();
  const byExt: Record<string, string> = {
    png: 'image/png',
    jpg: 'image/jpeg',
    jpeg: 'image/jpeg',
    gif: 'image/gif',
    webp: 'image/webp',
    svg: 'image/svg+xml',
    avif: 'image/avif',
    bmp: 'image/bmp',
  };
  return (ext && byExt[ext]) || 'application/octet-stream';
}
