/**
 * Upload-time type checks: the extension picks the format, the declared MIME type must agree with it,
 * and the bytes' magic numbers must match. Synchronous, no parsing beyond headers (and the ZIP central
 * directory for DOCX).
 */
import { isUtf8 } from 'node:buffer';

import type { DocumentKind, LoadInput } from '../../core/ports/document-loader';
import { DomainError } from '../../core/shared/errors';
import { EXTENSION_FORMATS, fileExtension, type FileFormat, FORMATS, GENERIC_MIME_TYPES, normalizeMimeType } from './file-types';
import { isZip, listZipEntries } from './zip-archive';

export interface DetectedFile {
  format: FileFormat;
  kind: DocumentKind;
  /** Canonical MIME type of the format. */
  mimeType: string;
  extension: string;
}

/** Checks extension, declared type and bytes; throws DomainError('UNSUPPORTED_MEDIA_TYPE') on any mismatch. */
export function detectFile(input: LoadInput): DetectedFile {
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
  if (!matchesFormat(input.bytes, format)) {
    const looksLike = describeBytes(input.bytes);
    throw new DomainError(
      'UNSUPPORTED_MEDIA_TYPE',
      `The bytes do not match the declared type of "${input.filename}" (${info.label}); they look like ${looksLike}`,
      { filename: input.filename, declaredMimeType: declared || undefined, expected: format, looksLike },
    );
  }
  return { format, kind: info.kind, mimeType: info.mimeTypes[0], extension };
}

/** True when the bytes carry the signature of the format. */
export function matchesFormat(bytes: Buffer, format: FileFormat): boolean {
  switch (format) {
    case 'pdf':
      return isPdf(bytes);
    case 'docx':
      return isDocx(bytes);
    case 'doc':
      return isWordBinary(bytes);
    case 'txt':
    case 'md':
    case 'csv':
      return isText(bytes);
    case 'html':
      return isText(bytes) && looksLikeHtml(bytes);
    case 'png':
      return startsWith(bytes, PNG);
    case 'jpeg':
      return startsWith(bytes, JPEG);
    case 'gif':
      return isGif(bytes);
    case 'webp':
      return isRiff(bytes, 'WEBP');
    case 'mp3':
      return isMp3(bytes);
    case 'wav':
      return isRiff(bytes, 'WAVE');
    case 'ogg':
      return ascii(bytes, 0, 4) === 'OggS';
    case 'webm':
      return startsWith(bytes, EBML);
    case 'm4a':
      return hasBrand(bytes, AUDIO_BRANDS, ISO_BRANDS);
    case 'mp4':
      return hasBrand(bytes, ISO_BRANDS, VIDEO_BRANDS, AUDIO_BRANDS);
    case 'mov':
      return hasBrand(bytes, QUICKTIME_BRANDS, ISO_BRANDS, VIDEO_BRANDS) || isClassicQuickTime(bytes);
  }
}

/** Best guess at what the bytes are, for error messages. */
export function describeBytes(bytes: Buffer): string {
  if (isPdf(bytes)) return FORMATS.pdf.label;
  if (startsWith(bytes, PNG)) return FORMATS.png.label;
  if (startsWith(bytes, JPEG)) return FORMATS.jpeg.label;
  if (isGif(bytes)) return FORMATS.gif.label;
  if (isRiff(bytes, 'WEBP')) return FORMATS.webp.label;
  if (isRiff(bytes, 'WAVE')) return FORMATS.wav.label;
  if (ascii(bytes, 0, 4) === 'OggS') return FORMATS.ogg.label;
  if (startsWith(bytes, EBML)) return 'a Matroska/WebM file';
  const brands = ftypBrands(bytes);
  if (brands) return `an ISO media file (brand ${brands[0].trim() || '?'})`;
  if (isDocx(bytes)) return FORMATS.docx.label;
  if (isZip(bytes)) return 'a ZIP archive';
  if (isWordBinary(bytes)) return FORMATS.doc.label;
  if (startsWith(bytes, OLE2)) return 'an OLE2 compound file (Excel, PowerPoint or similar)';
  if (isMp3(bytes)) return FORMATS.mp3.label;
  if (isText(bytes)) return looksLikeHtml(bytes) ? 'HTML markup' : 'plain text';
  return 'binary data';
}

const PNG = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];
const JPEG = [0xff, 0xd8, 0xff];
const EBML = [0x1a, 0x45, 0xdf, 0xa3];
const OLE2 = [0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1];
const UTF8_BOM = [0xef, 0xbb, 0xbf];
/** Stream name every Word 97-2003 compound file has, as stored in the directory (UTF-16LE). */
const WORD_DOCUMENT_NAME = Buffer.from('WordDocument', 'utf16le');

const QUICKTIME_BRANDS = new Set(['qt  ']);
const AUDIO_BRANDS = new Set(['M4A ', 'M4B ', 'M4P ', 'F4A ', 'F4B ']);
const VIDEO_BRANDS = new Set(['avc1', 'M4V ', 'M4VH', 'M4VP', 'F4V ', 'f4v ', 'mmp4', '3gp4', '3gp5', '3gp6', '3g2a', 'XAVC']);
const ISO_BRANDS = new Set([
  'isom',
  'iso2',
  'iso3',
  'iso4',
  'iso5',
  'iso6',
  'iso8',
  'iso9',
  'mp41',
  'mp42',
  'dash',
  'msnv',
  'MSNV',
  'ndas',
]);

const ascii = (bytes: Buffer, start: number, end: number): string => (bytes.length >= end ? bytes.toString('latin1', start, end) : '');

function startsWith(bytes: Buffer, signature: readonly number[], offset = 0): boolean {
  if (bytes.length < offset + signature.length) return false;
  return signature.every((b, i) => bytes[offset + i] === b);
}

/** Readers accept up to 1 KB of junk before the header, as Acrobat does. */
const isPdf = (bytes: Buffer): boolean => bytes.subarray(0, 1024).indexOf('%PDF-', 0, 'latin1') !== -1;

const isGif = (bytes: Buffer): boolean => ['GIF87a', 'GIF89a'].includes(ascii(bytes, 0, 6));

function isRiff(bytes: Buffer, form: string): boolean {
  return ['RIFF', 'RF64', 'BW64'].includes(ascii(bytes, 0, 4)) && ascii(bytes, 8, 12) === form;
}

function isDocx(bytes: Buffer): boolean {
  if (!isZip(bytes)) return false;
  const names = listZipEntries(bytes)?.map((e) => e.name);
  if (!names) return false;
  return names.includes('[Content_Types].xml') && names.some((n) => n.startsWith('word/'));
}

function isWordBinary(bytes: Buffer): boolean {
  return startsWith(bytes, OLE2) && bytes.indexOf(WORD_DOCUMENT_NAME, 512) !== -1;
}

function isMp3(bytes: Buffer): boolean {
  if (ascii(bytes, 0, 3) === 'ID3') return bytes.length >= 10 && bytes[3] < 0xff && bytes[4] < 0xff;
  if (bytes.length < 4 || bytes[0] !== 0xff || (bytes[1] & 0xe0) !== 0xe0) return false;
  const version = (bytes[1] >> 3) & 0x03; // 1 is reserved
  const layer = (bytes[1] >> 1) & 0x03; // 0 is reserved (and is how ADTS AAC looks)
  const bitrate = bytes[2] >> 4; // 15 is invalid
  const sampleRate = (bytes[2] >> 2) & 0x03; // 3 is reserved
  return version !== 1 && layer !== 0 && bitrate !== 15 && sampleRate !== 3;
}

/** Major and compatible brands of an ISO base media `ftyp` box at the start of the file. */
function ftypBrands(bytes: Buffer): string[] | undefined {
  if (ascii(bytes, 4, 8) !== 'ftyp' || bytes.length < 12) return undefined;
  const boxEnd = Math.min(bytes.readUInt32BE(0), bytes.length);
  const brands = [ascii(bytes, 8, 12)];
  for (let p = 16; p + 4 <= boxEnd; p += 4) brands.push(ascii(bytes, p, p + 4));
  return brands;
}

function hasBrand(bytes: Buffer, ...sets: ReadonlySet<string>[]): boolean {
  const brands = ftypBrands(bytes);
  return !!brands && brands.some((b) => sets.some((set) => set.has(b)));
}

/** QuickTime files written before `ftyp` existed start with one of these atoms. */
function isClassicQuickTime(bytes: Buffer): boolean {
  return ['moov', 'mdat', 'wide', 'free', 'skip', 'pnot'].includes(ascii(bytes, 4, 8));
}

/** Valid UTF-8 (BOM allowed), no NUL bytes, and not a known binary format that happens to be ASCII. */
function isText(bytes: Buffer): boolean {
  const body = startsWith(bytes, UTF8_BOM) ? bytes.subarray(3) : bytes;
  if (body.indexOf(0) !== -1 || !isUtf8(body)) return false;
  return !isPdf(body) && !startsWith(body, [0x7b, 0x5c, 0x72, 0x74, 0x66]); // {\rtf
}

const HTML_HINT =
  /<(!doctype\s+html|html|head|body|title|meta|main|article|section|div|p|h[1-6]|ul|ol|li|table|a|span|br|img|script|style|!--)[\s>/]/i;

function looksLikeHtml(bytes: Buffer): boolean {
  return HTML_HINT.test(bytes.toString('utf8', 0, Math.min(bytes.length, 8192)));
}
