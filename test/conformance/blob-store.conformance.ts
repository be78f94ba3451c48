import { randomBytes } from 'node:crypto';
import type { Readable } from 'node:stream';

import type { BlobObject, BlobStore } from '../../core/ports/blob-store';
import { DomainError } from '../../core/shared/errors';

/** Both adapters also expose `head` (size + contentType); the suite uses it to check what was stored. */
export type BlobStoreUnderTest = BlobStore & { head(key: string): Promise<BlobObject> };

export interface BlobStoreConformanceOptions {
  /** Creates the store once for the suite (the suite isolates tests by unique key prefixes). */
  create: () => Promise<BlobStoreUnderTest> | BlobStoreUnderTest;
  /** Releases whatever `create` started. */
  destroy?: () => Promise<void> | void;
}

async function readAll(stream: Readable): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array));
  return Buffer.concat(chunks);
}

async function expectDomainError(p: Promise<unknown>, code: string): Promise<void> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(DomainError);
  expect((err as DomainError).code).toBe(code);
}

/** Every byte value once, then random bytes: catches any text/encoding mangling. */
function binarySample(size: number): Buffer {
  const all = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
  return Buffer.concat([all, randomBytes(Math.max(0, size - 256))]);
}

export function blobStoreConformance(name: string, options: BlobStoreConformanceOptions): void {
  describe(`BlobStore conformance: ${name}`, () => {
    let store: BlobStoreUnderTest;
    let n = 0;
    /** A fresh organization-like prefix per test, so tests never see each other's objects. */
    const fresh = () => `conf-${process.pid}-${Date.now().toString(36)}-${n++}`;

    beforeAll(async () => {
      store = await options.create();
    });
    afterAll(async () => {
      await options.destroy?.();
    });

    it('has an id', () => {
      expect(typeof store.id).toBe('string');
      expect(store.id.length).toBeGreaterThan(0);
    });

    it('round-trips binary data with size and contentType', async () => {
      const key = `${fresh()}/uploads/report.pdf`;
      const data = binarySample(70_000);
      const put = await store.put(key, data, 'application/pdf');
      expect(put).toEqual({ key, size: data.length, contentType: 'application/pdf' });
      expect((await store.get(key)).equals(data)).toBe(true);
      expect(await store.head(key)).toEqual({ key, size: data.length, contentType: 'application/pdf' });
    });

    it('accepts a Uint8Array view (not a Buffer) and stores only the viewed bytes', async () => {
      const key = `${fresh()}/view.bin`;
      const backing = new Uint8Array([9, 9, 1, 2, 3, 4, 9, 9]);
      const view = new Uint8Array(backing.buffer, 2, 4);
      const put = await store.put(key, view);
      expect(put.size).toBe(4);
      expect([...(await store.get(key))]).toEqual([1, 2, 3, 4]);
    });

    it('stores an empty object', async () => {
      const key = `${fresh()}/empty.txt`;
      expect((await store.put(key, Buffer.alloc(0), 'text/plain')).size).toBe(0);
      expect(await store.exists(key)).toBe(true);
      expect((await store.get(key)).length).toBe(0);
      expect((await store.head(key)).size).toBe(0);
    });

    it('streams the same bytes as get, for an object larger than one chunk', async () => {
      const key = `${fresh()}/big.bin`;
      const data = binarySample(3 * 1024 * 1024 + 17);
      await store.put(key, data, 'application/octet-stream');
      const streamed = await readAll(await store.stream(key));
      expect(streamed.length).toBe(data.length);
      expect(streamed.equals(data)).toBe(true);
    });

    it('reports existence, and delete removes the object', async () => {
      const key = `${fresh()}/a.txt`;
      expect(await store.exists(key)).toBe(false);
      await store.put(key, Buffer.from('hello'), 'text/plain');
      expect(await store.exists(key)).toBe(true);
      await store.delete(key);
      expect(await store.exists(key)).toBe(false);
      await expectDomainError(store.get(key), 'NOT_FOUND');
    });

    it('deleting a missing key is a no-op', async () => {
      await expect(store.delete(`${fresh()}/never-written`)).resolves.toBeUndefined();
    });

    it('throws NOT_FOUND for get, stream and head of a missing key', async () => {
      const key = `${fresh()}/missing.bin`;
      await expectDomainError(store.get(key), 'NOT_FOUND');
      await expectDomainError(store.stream(key), 'NOT_FOUND');
      await expectDomainError(store.head(key), 'NOT_FOUND');
    });

    it('overwrites: the second put wins for bytes, size and contentType', async () => {
      const key = `${fresh()}/doc`;
      await store.put(key, Buffer.from('first version, longer'), 'text/plain');
      await store.put(key, Buffer.from('<p>2</p>'), 'text/html');
      expect((await store.get(key)).toString()).toBe('<p>2</p>');
      expect(await store.head(key)).toEqual({ key, size: 8, contentType: 'text/html' });
    });

    it('keeps a key and a longer key below it apart (a and a/b)', async () => {
      const p = fresh();
      await store.put(`${p}/a`, Buffer.from('A'));
      await store.put(`${p}/a/b`, Buffer.from('AB'));
      expect((await store.get(`${p}/a`)).toString()).toBe('A');
      expect((await store.get(`${p}/a/b`)).toString()).toBe('AB');
      await store.delete(`${p}/a`);
      expect(await store.exists(`${p}/a`)).toBe(false);
      expect((await store.get(`${p}/a/b`)).toString()).toBe('AB');
    });

    it('deletePrefix removes a whole subtree, returns the count and leaves other prefixes alone', async () => {
      const org1 = `${fresh()}/org-1`;
      const org10 = org1.replace(/org-1$/, 'org-10');
      const other = `${fresh()}/org-1`;
      const doomed = [`${org1}/a.txt`, `${org1}/docs/b.txt`, `${org1}/docs/deep/c.bin`, `${org1}/docs/deep/d.bin`];
      const kept = [`${org10}/x.txt`, `${other}/a.txt`];
      for (const k of [...doomed, ...kept]) await store.put(k, Buffer.from(k), 'text/plain');

      expect(await store.deletePrefix(`${org1}/`)).toBe(doomed.length);
      for (const k of doomed) expect(await store.exists(k)).toBe(false);
      for (const k of kept) expect((await store.get(k)).toString()).toBe(k);

      expect(await store.deletePrefix(`${org1}/`)).toBe(0);
      // The tree can be written again after it was removed.
      await store.put(`${org1}/docs/again.txt`, Buffer.from('again'));
      expect((await store.get(`${org1}/docs/again.txt`)).toString()).toBe('again');
    });

    it('deletePrefix matches key prefixes as strings, not only whole path segments', async () => {
      const p = fresh();
      await store.put(`${p}/org-1/a`, Buffer.from('1'));
      await store.put(`${p}/org-10/b`, Buffer.from('2'));
      await store.put(`${p}/org-1x`, Buffer.from('3'));
      await store.put(`${p}/other/c`, Buffer.from('4'));
      expect(await store.deletePrefix(`${p}/org-1`)).toBe(3);
      expect(await store.exists(`${p}/other/c`)).toBe(true);
    });

    it('deletePrefix of a prefix with no objects returns 0', async () => {
      expect(await store.deletePrefix(`${fresh()}/nothing/`)).toBe(0);
    });

    it('concurrent puts to one key leave exactly one complete version', async () => {
      const key = `${fresh()}/race.bin`;
      const versions = Array.from({ length: 8 }, (_, i) => Buffer.alloc(256 * 1024, i + 1));
      await Promise.all(versions.map((v) => store.put(key, v)));
      const got = await store.get(key);
      expect(versions.some((v) => v.equals(got))).toBe(true);
      expect(await store.deletePrefix(key)).toBe(1);
    });
  });
}
