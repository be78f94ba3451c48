/**
 * Upload-time type checks: the extension picks the format, the declared MIME type must agree with it,
 * and the bytes must be that format. Binary formats are recognised by `file-type` (which reads the ZIP
 * directory of Office files itself); the text formats it does not detect (txt, md, csv, html) are valid
 * UTF-8 without NUL bytes that file-type does not identify as a PDF or RTF document.
 */
import { isUtf8 } from 'node:buffer';

import { fileTypeFromBuffer, type FileTypeResult } from 'file-type';

import type { DocumentKind, LoadInput } from '../../core/ports/document-loader';
import { DomainError } from '../../core/shared/errors';
import { EXTENSION_FORMATS, fileExtension, type FileFormat, FORMATS, GENERIC_MIME_TYPES, normalizeMimeType } from './file-types';

export interface DetectedFile {
  format: FileFormat;
  kind: DocumentKind;
  /** Canonical MIME type of the format. */
  mimeType: string;
  extension: string;
}

/** Checks extension, declared type and bytes; throws DomainError('UNSUPPORTED_MEDIA_TYPE') on any mismatch. */
export async function detectFile(input: LoadInput): Promise<DetectedFile> {
  const extension = fileExtension(input.filename);
  const format = EXTENSION_FORMATS[extension];
  if (!format) {
    throw new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      extension ? `Unsupported file type: .${extension}` : `Unsupported file type: "${input.filename}" has no extension`,
      { filename: input.filename },
    );
  }
  const info = FORMATS[format];
  const declared = normalizeMimeType(input.declaredMimeType);
  if (!GENERIC_MIME_TYPES.has(declared) && !info.mimeTypes.includes(declared)) {
    throw new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The declared type ${declared} does not match the .${extension} extension of "${input.filename}"`,
      { filename: input.filename, declaredMimeType: declared, expected: info.mimeTypes },
    );
  }
  if (input.bytes.length === 0) {
    throw new DomainError('VALIDATION', `"${input.filename}" is empty`, { filename: input.filename });
  }
  const sniffed = await sniff(input.bytes);
  if (!matchesFormat(input.bytes, sniffed, format)) {
    const looksLike = describeSniffed(input.bytes, sniffed);
    throw new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The bytes do not match the declared type of "${input.filename}" (${info.label}); they look like ${looksLike}`,
      { filename: input.filename, declaredMimeType: declared || undefined, expected: format, looksLike },
    );
  }
  return { format, kind: info.kind, mimeType: info.mimeTypes[0], extension };
}

/** Best guess at what the bytes are, for error messages. */
export async function describeBytes(bytes: Buffer): Promise<string> {
  return describeSniffed(bytes, await sniff(bytes));
}

/** file-type's answer; it reads only the headers (and a ZIP's directory), whatever the file's size. */
const sniff = (bytes: Buffer): Promise<FileTypeResult | undefined> => fileTypeFromBuffer(bytes);

/**
 * file-type extensions each upload format accepts. Containers are judged by container, as before:
 * any Ogg stream is .ogg, any ISO media brand an .mp4 (M4A files often carry the generic isom/mp42 brand).
 */
const ACCEPTED: Readonly<Partial<Record<FileFormat, ReadonlySet<string>>>> = {
  pdf: new Set(['pdf', 'ai']), // Illustrator files are PDFs with private data
  docx: new Set(['docx']),
  png: new Set(['png', 'apng']),
  jpeg: new Set(['jpg']),
  gif: new Set(['gif']),
  webp: new Set(['webp']),
  mp3: new Set(['mp3', 'mp2', 'mp1']),
  wav: new Set(['wav']),
  m4a: new Set(['m4a', 'm4b', 'm4p', 'f4a', 'f4b', 'mp4']),
  ogg: new Set(['ogg', 'oga', 'opus', 'ogv', 'ogx', 'ogm', 'spx']),
  mp4: new Set(['mp4', 'm4v', 'm4a', 'm4b', 'm4p', 'f4v', 'f4p', 'f4a', 'f4b', '3gp', '3g2']),
  webm: new Set(['webm', 'mkv']),
  mov: new Set(['mov', 'mp4', 'm4v']),
};

/** ASCII document formats that are valid UTF-8 but not text to index as typed. */
const NOT_PLAIN_TEXT = new Set(['pdf', 'ai', 'rtf']);

function matchesFormat(bytes: Buffer, sniffed: FileTypeResult | undefined, format: FileFormat): boolean {
  switch (format) {
    case 'txt':
    case 'md':
    case 'csv':
      return isText(bytes, sniffed);
    case 'html':
      return isText(bytes, sniffed) && looksLikeHtml(bytes);
    case 'doc':
      return isWordBinary(bytes, sniffed);
    case 'gif':
      // file-type matches the three bytes "GIF"; decoders also need a known version
      return sniffed?.ext === 'gif' && ['GIF87a', 'GIF89a'].includes(bytes.toString('latin1', 0, 6));
    default:
      return !!sniffed && !!ACCEPTED[format]?.has(sniffed.ext);
  }
}

/** Labels for file-type answers that have no upload format of their own. */
const OTHER_LABELS: Readonly<Record<string, string>> = {
  zip: 'a ZIP archive',
  cfb: 'an OLE2 compound file (Excel, PowerPoint or similar)',
  mkv: 'a Matroska/WebM file',
};

function describeSniffed(bytes: Buffer, sniffed: FileTypeResult | undefined): string {
  if (!sniffed) return isText(bytes, sniffed) ? (looksLikeHtml(bytes) ? 'HTML markup' : 'plain text') : 'binary data';
  // an ISO media file is named by its major brand, which is what tells audio, video and images apart
  if (bytes.toString('latin1', 4, 8) === 'ftyp') return `an ISO media file (brand ${bytes.toString('latin1', 8, 12).trim() || '?'})`;
  if (isWordBinary(bytes, sniffed)) return FORMATS.doc.label;
  if (OTHER_LABELS[sniffed.ext]) return OTHER_LABELS[sniffed.ext];
  const format = (Object.keys(ACCEPTED) as FileFormat[]).find((f) => ACCEPTED[f]?.has(sniffed.ext));
  return format ? FORMATS[format].label : `a .${sniffed.ext} file (${sniffed.mime})`;
}

/** Stream name every Word 97-2003 compound file has, as stored in the directory (UTF-16LE). */
const WORD_DOCUMENT_NAME = Buffer.from('WordDocument', 'utf16le');

/** file-type names every OLE2 compound file `cfb`; Word's has a WordDocument stream (Excel's a Workbook). */
const isWordBinary = (bytes: Buffer, sniffed: FileTypeResult | undefined): boolean =>
  sniffed?.ext === 'cfb' && bytes.indexOf(WORD_DOCUMENT_NAME, 512) !== -1;

const UTF8_BOM = Buffer.from([0xef, 0xbb, 0xbf]);

/** Valid UTF-8 (BOM allowed), no NUL bytes, and not a document format that happens to be ASCII. */
function isText(bytes: Buffer, sniffed: FileTypeResult | undefined): boolean {
  const body = bytes.subarray(0, 3).equals(UTF8_BOM) ? bytes.subarray(3) : bytes;
  if (body.indexOf(0) !== -1 || !isUtf8(body)) return false;
  return !(sniffed && NOT_PLAIN_TEXT.has(sniffed.ext));
}

const HTML_HINT =
  /<(!doctype\s+html|html|head|body|title|meta|main|article|section|div|p|h[1-6]|ul|ol|li|table|a|span|br|img|script|style|!--)[\s>/]/i;

function looksLikeHtml(bytes: Buffer): boolean {
  return HTML_HINT.test(bytes.toString('utf8', 0, Math.min(bytes.length, 8192)));
}
