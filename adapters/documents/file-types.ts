import type { DocumentKind } from '../../core/ports/document-loader';

/** The concrete formats behind the supported upload extensions. */
export type FileFormat =
  | 'pdf'
  | 'docx'
  | 'doc'
  | 'txt'
  | 'md'
  | 'csv'
  | 'html'
  | 'png'
  | 'jpeg'
  | 'gif'
  | 'webp'
  | 'mp3'
  | 'wav'
  | 'm4a'
  | 'ogg'
  | 'mp4'
  | 'webm'
  | 'mov';

export interface FormatInfo {
  kind: DocumentKind;
  /** Human name used in error messages. */
  label: string;
  /** Declared MIME types accepted for this format; the first is the canonical one. */
  mimeTypes: readonly [string, ...string[]];
}

export const FORMATS: Readonly<Record<FileFormat, FormatInfo>> = {
  pdf: { kind: 'pdf', label: 'a PDF document', mimeTypes: ['application/pdf', 'application/x-pdf', 'application/acrobat'] },
  docx: {
    kind: 'docx',
    label: 'a Word (.docx) document',
    mimeTypes: ['application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
  },
  doc: {
    kind: 'doc',
    label: 'a Word 97-2003 (.doc) document',
    mimeTypes: ['application/msword', 'application/doc', 'application/vnd.ms-word', 'application/x-msword'],
  },
  txt: { kind: 'text', label: 'plain text', mimeTypes: ['text/plain'] },
  md: { kind: 'markdown', label: 'Markdown text', mimeTypes: ['text/markdown', 'text/x-markdown', 'text/plain'] },
  csv: {
    kind: 'csv',
    label: 'CSV text',
    mimeTypes: [
      'text/csv',
      'text/x-csv',
      'application/csv',
      'text/comma-separated-values',
      'application/vnd.ms-excel', // what Windows browsers send for .csv
      'text/plain',
    ],
  },
  html: { kind: 'html', label: 'an HTML page', mimeTypes: ['text/html', 'application/xhtml+xml'] },
  png: { kind: 'image', label: 'a PNG image', mimeTypes: ['image/png', 'image/x-png'] },
  jpeg: { kind: 'image', label: 'a JPEG image', mimeTypes: ['image/jpeg', 'image/jpg', 'image/pjpeg'] },
  gif: { kind: 'image', label: 'a GIF image', mimeTypes: ['image/gif'] },
  webp: { kind: 'image', label: 'a WebP image', mimeTypes: ['image/webp'] },
  mp3: {
    kind: 'audio',
    label: 'MP3 audio',
    mimeTypes: ['audio/mpeg', 'audio/mp3', 'audio/mpeg3', 'audio/x-mpeg-3', 'audio/x-mp3'],
  },
  wav: { kind: 'audio', label: 'WAV audio', mimeTypes: ['audio/wav', 'audio/x-wav', 'audio/wave', 'audio/vnd.wave'] },
  m4a: { kind: 'audio', label: 'M4A audio', mimeTypes: ['audio/mp4', 'audio/x-m4a', 'audio/m4a'] },
  ogg: { kind: 'audio', label: 'Ogg audio', mimeTypes: ['audio/ogg', 'application/ogg', 'video/ogg', 'audio/opus'] },
  mp4: { kind: 'video', label: 'an MP4 video', mimeTypes: ['video/mp4', 'application/mp4', 'audio/mp4', 'video/x-m4v'] },
  webm: { kind: 'video', label: 'a WebM video', mimeTypes: ['video/webm', 'audio/webm'] },
  mov: { kind: 'video', label: 'a QuickTime (.mov) video', mimeTypes: ['video/quicktime', 'video/mov', 'video/x-quicktime'] },
};

/** Supported upload extensions (lower case, without the dot) and their formats. */
export const EXTENSION_FORMATS: Readonly<Record<string, FileFormat>> = {
  pdf: 'pdf',
  docx: 'docx',
  doc: 'doc',
  txt: 'txt',
  md: 'md',
  csv: 'csv',
  html: 'html',
  htm: 'html',
  png: 'png',
  jpg: 'jpeg',
  jpeg: 'jpeg',
  gif: 'gif',
  webp: 'webp',
  mp3: 'mp3',
  wav: 'wav',
  m4a: 'm4a',
  ogg: 'ogg',
  mp4: 'mp4',
  webm: 'webm',
  mov: 'mov',
};

export const SUPPORTED_EXTENSIONS: readonly string[] = Object.keys(EXTENSION_FORMATS);

/** Declared types that say nothing about the content: the extension decides, the bytes are still checked. */
export const GENERIC_MIME_TYPES: ReadonlySet<string> = new Set(['', 'application/octet-stream', 'binary/octet-stream']);

/** Lower-cased MIME type without parameters (`Text/HTML; charset=utf-8` → `text/html`). */
export function normalizeMimeType(value: string | undefined): string {
  return (value ?? '').split(';')[0].trim().toLowerCase();
}

/** Lower-cased extension without the dot, or '' when the name has none. */
export function fileExtension(filename: string): string {
  const base = filename.split(/[\\/]/).pop() ?? '';
  const dot = base.lastIndexOf('.');
  return dot > 0 && dot < base.length - 1 ? base.slice(dot + 1).toLowerCase() : '';
}
