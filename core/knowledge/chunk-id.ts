import { createHash } from 'node:crypto';

/**
 * The id of a document's chunk: a UUID (version-5 layout) derived from the document id and chunk index, so
 * re-processing a document rewrites the same ids instead of adding copies.
 */
export function chunkId(documentId: string, chunkIndex: number): string {
  const h = createHash('sha256').update(`${documentId}:${chunkIndex}`).digest();
  h[6] = (h[6] & 0x0f) | 0x50;
  h[8] = (h[8] & 0x3f) | 0x80;
  const hex = h.subarray(0, 16).toString('hex');
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-${hex.slice(12, 16)}-${hex.slice(16, 20)}-${hex.slice(20)}`;
}

/** sha256 of the text as indexed (sources compare it to skip unchanged items). */
export const contentHash = (text: string) => createHash('sha256').update(text).digest('hex');
