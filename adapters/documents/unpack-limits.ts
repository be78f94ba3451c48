/**
 * Decompression-bomb guards, run before a parser sees the file. Parsers (mammoth's jszip, pdf.js) inflate a
 * whole part into memory before anything can measure it; here each compressed part is inflated by zlib with
 * `maxOutputLength`, which stops at the cap instead of inflating then measuring, and the parts of one file
 * share a budget. Breaking either fails the file with PAYLOAD_TOO_LARGE "... too large when unpacked ...".
 */
import { inflateRawSync, inflateSync } from 'node:zlib';

import { DomainError } from '../../core/shared/errors';
import { decodeChain, FilterOutputTooLarge, filtersOf, isUnpackingFilter } from './pdf-filters';
import { listZipEntries, type ZipEntry } from './zip-archive';

export interface UnpackLimits {
  /** Largest unpacked size of one part (a ZIP entry, a PDF stream). */
  maxPartBytes: number;
  /** Largest unpacked size of all parts of one file together. */
  maxTotalBytes: number;
}

export const TOO_LARGE_WHEN_UNPACKED = 'too large when unpacked';

export function tooLargeWhenUnpacked(filename: string, limits: UnpackLimits, part?: string): DomainError {
  const where = part ? ` (${part})` : '';
  return new DomainError(
    'PAYLOAD_TOO_LARGE',
    `"${filename}" is ${TOO_LARGE_WHEN_UNPACKED}${where}: more than ${limits.maxPartBytes} bytes in one part or ${limits.maxTotalBytes} in all`,
    { filename, limit: limits.maxPartBytes },
  );
}

/** Counts unpacked bytes of one file against its limits. */
class UnpackBudget {
  private used = 0;
  constructor(
    private readonly filename: string,
    private readonly limits: UnpackLimits,
  ) {}

  /** What the next part may unpack to: the part limit, or what is left of the file's. */
  cap(): number {
    return Math.max(0, Math.min(this.limits.maxPartBytes, this.limits.maxTotalBytes - this.used));
  }

  /** Counts `size` unpacked bytes of `part`; past the cap the file fails. */
  count(part: string, size: number): void {
    if (size > this.cap()) throw tooLargeWhenUnpacked(this.filename, this.limits, part);
    this.used += size;
  }

  /**
   * Runs a PDF stream's filter chain, each stage capped like one part and every stage's output counted against
   * the file's total (a chain that unpacks to nothing at its end still did the work of its middle stages).
   */
  decodeChain(part: string, data: Buffer, filters: string[]): void {
    try {
      decodeChain(
        data,
        filters,
        () => this.cap(),
        (_filter, size) => this.count(part, size),
      );
    } catch (error) {
      if (error instanceof FilterOutputTooLarge) throw tooLargeWhenUnpacked(this.filename, this.limits, part);
      throw error;
    }
  }

  /** Inflates `data` up to the cap; undefined when it is not valid deflate data (the parser will say so). */
  inflate(part: string, data: Buffer, raw: boolean): number | undefined {
    const cap = this.cap();
    let size: number;
    try {
      // one byte over the cap tells "exactly the cap" from "more"
      size = (raw ? inflateRawSync : inflateSync)(data, { maxOutputLength: cap + 1 }).length;
    } catch (error) {
      if ((error as { code?: string }).code === 'ERR_BUFFER_TOO_LARGE') throw tooLargeWhenUnpacked(this.filename, this.limits, part);
      return undefined;
    }
    if (size > cap) throw tooLargeWhenUnpacked(this.filename, this.limits, part);
    this.used += size;
    return size;
  }
}

/** Parts of an Office package that the text extraction never reads (images, embedded objects, fonts). */
const UNREAD_PART = /^(?:word|xl|ppt)\/(?:media|embeddings|fonts)\//i;

/**
 * Every deflated entry of a ZIP package a parser may read, inflated under the limits. A declared size over the
 * cap fails at once; the declared size is not trusted otherwise (a bomb declares a small one).
 */
export function checkZipUnpackedSize(bytes: Buffer, filename: string, limits: UnpackLimits): void {
  const entries = listZipEntries(bytes);
  if (!entries) return; // not a readable ZIP: the parser reports it
  const budget = new UnpackBudget(filename, limits);
  for (const entry of entries) {
    if (UNREAD_PART.test(entry.name) || entry.method === 0) continue;
    if (entry.uncompressedSize > limits.maxPartBytes) throw tooLargeWhenUnpacked(filename, limits, entry.name);
    const data = entryData(bytes, entry);
    if (data) budget.inflate(entry.name, data, true);
  }
}

function entryData(bytes: Buffer, entry: ZipEntry): Buffer | undefined {
  const p = entry.localHeaderOffset;
  if (p + 30 > bytes.length || bytes.readUInt32LE(p) !== 0x04034b50) return undefined;
  const start = p + 30 + bytes.readUInt16LE(p + 26) + bytes.readUInt16LE(p + 28);
  const end = Math.min(bytes.length, start + entry.compressedSize);
  return start < end ? bytes.subarray(start, end) : undefined;
}

const STREAM = Buffer.from('stream');
const END_STREAM = Buffer.from('endstream');

/** A zlib header as pdf.js's FlateStream accepts it: deflate method, and the header's checksum. */
const isZlibHeader = (cmf: number, flg: number) => (cmf & 0x0f) === 8 && ((cmf << 8) + flg) % 31 === 0;

/** How far before `stream` its dictionary is looked for (the object header `N G obj` opens it). */
const DICTIONARY_LOOKBACK = 64 * 1024;
const OBJ = Buffer.from('obj');

/** The text of a stream's dictionary: from its object header (or the lookback's start) to the `stream` keyword. */
function dictionaryBefore(bytes: Buffer, at: number, floor: number): string {
  const from = Math.max(floor, at - DICTIONARY_LOOKBACK);
  const header = bytes.lastIndexOf(OBJ, at);
  return bytes.toString('latin1', header >= from ? header + OBJ.length : from, at);
}

/**
 * Every unpacking stream of a PDF (content, object streams, fonts), decoded under the limits. A stream whose
 * dictionary names its filters in place goes through that whole chain (`[/ASCIIHexDecode /FlateDecode]`,
 * ASCII85, LZW, RunLength: pdf-filters.ts), each stage capped like one part and all counted in the file's total.
 * Any other stream is checked by its zlib header, so a crafted dictionary (an indirect /Filter, a wrong /Length)
 * does not hide a plain deflate one. Encrypted streams are not seen here; the task's time and memory bounds
 * cover those.
 */
export function checkPdfUnpackedSize(bytes: Buffer, filename: string, limits: UnpackLimits): void {
  const budget = new UnpackBudget(filename, limits);
  let from = 0;
  let index = 0;
  for (;;) {
    const at = bytes.indexOf(STREAM, from);
    if (at < 0) return;
    const previousEnd = from;
    from = at + STREAM.length;
    // `endstream` also contains `stream`; the keyword that opens data is followed by an end of line
    if (at >= 3 && bytes.toString('latin1', at - 3, at) === 'end') continue;
    let start = from;
    if (bytes[start] === 0x0d) start++;
    if (bytes[start] !== 0x0a && start === from) continue;
    if (bytes[start] === 0x0a) start++;
    const filters = filtersOf(dictionaryBefore(bytes, at, previousEnd));
    const chained = filters !== null && filters.some(isUnpackingFilter);
    if (!chained && (start + 2 > bytes.length || !isZlibHeader(bytes[start], bytes[start + 1]))) continue;
    const end = bytes.indexOf(END_STREAM, start);
    const data = bytes.subarray(start, end < 0 ? bytes.length : end);
    index++;
    if (chained) budget.decodeChain(`stream ${index}`, data, filters);
    else budget.inflate(`stream ${index}`, data, false);
    from = end < 0 ? bytes.length : end + END_STREAM.length;
  }
}
