/**
 * Just enough ZIP reading to recognise Office Open XML packages (entry names) and read small parts
 * such as docProps/core.xml. No ZIP64, no encryption: callers treat undefined as "not readable".
 */
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  localHeaderOffset: number;
}

const LOCAL_HEADER = 0x04034b50;
const CENTRAL_HEADER = 0x02014b50;
const END_OF_CENTRAL_DIRECTORY = 0x06054b50;
const MAX_COMMENT = 0xffff;

export const isZip = (bytes: Buffer): boolean => bytes.length >= 4 && bytes.readUInt32LE(0) === LOCAL_HEADER;

/** Entries listed in the central directory, or undefined when the archive is truncated or not a ZIP. */
export function listZipEntries(bytes: Buffer): ZipEntry[] | undefined {
  if (!isZip(bytes) || bytes.length < 22) return undefined;
  const eocd = findEndOfCentralDirectory(bytes);
  if (eocd < 0) return undefined;
  const count = bytes.readUInt16LE(eocd + 10);
  const size = bytes.readUInt32LE(eocd + 12);
  const offset = bytes.readUInt32LE(eocd + 16);
  if (offset + size > eocd) return undefined;

  const entries: ZipEntry[] = [];
  let p = offset;
  for (let i = 0; i < count; i++) {
    if (p + 46 > bytes.length || bytes.readUInt32LE(p) !== CENTRAL_HEADER) return undefined;
    const nameLength = bytes.readUInt16LE(p + 28);
    const extraLength = bytes.readUInt16LE(p + 30);
    const commentLength = bytes.readUInt16LE(p + 32);
    if (p + 46 + nameLength > bytes.length) return undefined;
    entries.push({
      method: bytes.readUInt16LE(p + 10),
      compressedSize: bytes.readUInt32LE(p + 20),
      uncompressedSize: bytes.readUInt32LE(p + 24),
      localHeaderOffset: bytes.readUInt32LE(p + 42),
      name: bytes.toString('utf8', p + 46, p + 46 + nameLength),
    });
    p += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/** The uncompressed bytes of one entry (stored or deflated), or undefined when unreadable. */
export function readZipEntry(bytes: Buffer, entry: ZipEntry, maxBytes = 5 * 1024 * 1024): Buffer | undefined {
  const p = entry.localHeaderOffset;
  if (entry.uncompressedSize > maxBytes) return undefined;
  if (p + 30 > bytes.length || bytes.readUInt32LE(p) !== LOCAL_HEADER) return undefined;
  const start = p + 30 + bytes.readUInt16LE(p + 26) + bytes.readUInt16LE(p + 28);
  const end = start + entry.compressedSize;
  if (end > bytes.length) return undefined;
  const data = bytes.subarray(start, end);
  try {
    if (entry.method === 0) return Buffer.from(data);
    if (entry.method === 8) return inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch {
    return undefined;
  }
  return undefined;
}

function findEndOfCentralDirectory(bytes: Buffer): number {
  const stop = Math.max(0, bytes.length - 22 - MAX_COMMENT);
  for (let p = bytes.length - 22; p >= stop; p--) {
    if (bytes.readUInt32LE(p) === END_OF_CENTRAL_DIRECTORY) return p;
  }
  return -1;
}
