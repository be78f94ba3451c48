import type { Readable } from 'node:stream';

export interface BlobObject {
  key: string;
  size: number;
  contentType?: string;
}

/** Original uploads and other large objects. Keys are chosen by the core and are organization-prefixed. */
export interface BlobStore {
  readonly id: string;
  put(key: string, data: Buffer | Uint8Array, contentType?: string): Promise<BlobObject>;
  get(key: string): Promise<Buffer>;
  stream(key: string): Promise<Readable>;
  exists(key: string): Promise<boolean>;
  delete(key: string): Promise<void>;
  /** Deletes every object whose key starts with prefix; returns how many went. */
  deletePrefix(prefix: string): Promise<number>;
}
export const BLOB_STORE = Symbol.for('BlobStore');
