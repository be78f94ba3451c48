/**
 * A BlobStore that keeps objects in memory, up to a byte budget: the worked example of
 * docs/adding-an-adapter.md (an adapter folder would be adapters/memory-blob/ with this file and
 * memory.adapters.ts). Useful for throwaway demos; everything is lost when the process ends.
 */
import { Readable } from 'node:stream';

import type { BlobObject, BlobStore } from '../../../core/ports/blob-store';
import { DomainError } from '../../../core/shared/errors';

export interface MemoryBlobStoreOptions {
  /** Total bytes kept; a put beyond it fails with PAYLOAD_TOO_LARGE. */
  maxBytes: number;
}

interface Entry {
  data: Buffer;
  contentType?: string;
}

export class MemoryBlobStore implements BlobStore {
  readonly id = 'memory';
  private readonly objects = new Map<string, Entry>();
  private used = 0;

  constructor(private readonly options: MemoryBlobStoreOptions) {}

  put(key: string, data: Buffer | Uint8Array, contentType?: string): Promise<BlobObject> {
    const copy = Buffer.from(data.buffer.slice(data.byteOffset, data.byteOffset + data.byteLength));
    const replaced = this.objects.get(key)?.data.length ?? 0;
    if (this.used - replaced + copy.length > this.options.maxBytes)
      return Promise.reject(new DomainError('PAYLOAD_TOO_LARGE', `The memory blob store holds at most ${this.options.maxBytes} bytes`));
    this.objects.set(key, { data: copy, ...(contentType ? { contentType } : {}) });
    this.used += copy.length - replaced;
    return Promise.resolve({ key, size: copy.length, ...(contentType ? { contentType } : {}) });
  }

  private entry(key: string): Entry {
    const entry = this.objects.get(key);
    if (!entry) throw new DomainError('NOT_FOUND', `No object ${key}`);
    return entry;
  }

  get(key: string): Promise<Buffer> {
    return Promise.resolve().then(() => Buffer.from(this.entry(key).data));
  }

  stream(key: string): Promise<Readable> {
    return Promise.resolve().then(() => Readable.from([this.entry(key).data]));
  }

  head(key: string): Promise<BlobObject> {
    return Promise.resolve().then(() => {
      const { data, contentType } = this.entry(key);
      return { key, size: data.length, ...(contentType ? { contentType } : {}) };
    });
  }

  exists(key: string): Promise<boolean> {
    return Promise.resolve(this.objects.has(key));
  }

  delete(key: string): Promise<void> {
    this.used -= this.objects.get(key)?.data.length ?? 0;
    this.objects.delete(key);
    return Promise.resolve();
  }

  async deletePrefix(prefix: string): Promise<number> {
    const doomed = [...this.objects.keys()].filter((k) => k.startsWith(prefix));
    for (const key of doomed) await this.delete(key);
    return doomed.length;
  }
}
