import { randomBytes } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import type { Readable } from 'node:stream';

import type { BlobObject, BlobStore } from '../../core/ports/blob-store';
import { DomainError } from '../../core/shared/errors';

export interface LocalFolderBlobStoreOptions {
  /** Folder that holds every object; created on first write. */
  root: string;
}

/** JSON schema (ajv, draft-07) for the options, validated at boot. */
export const localFolderBlobStoreOptionsSchema = {
  type: 'object',
  properties: {
    root: { type: 'string', minLength: 1 },
  },
  required: ['root'],
  additionalProperties: false,
} as const;

/*
 * On-disk layout. A key `a/b/c` is stored as `<root>/a.d/b.d/c.blob` with its metadata in
 * `<root>/a.d/b.d/c.meta.json`. Directory names always end in `.d` and object files in `.blob`,
 * `.meta.json` or `.tmp`, so the keys `a` and `a/b` can both exist (as in S3) and no key can
 * collide with a sidecar or a temp file.
 */
const DIR_SUFFIX = '.d';
const BLOB_SUFFIX = '.blob';
const META_SUFFIX = '.meta.json';
const TMP_SUFFIX = '.tmp';
const MAX_KEY_LENGTH = 1024;

interface MetaFile {
  contentType?: string;
  /** Size and mtime of the blob file this metadata was written for (detects a stale sidecar). */
  size: number;
  mtimeMs: number;
}

interface ObjectPaths {
  dir: string;
  blob: string;
  meta: string;
}

const invalid = (what: string, value: string, reason: string) =>
  new DomainError('VALIDATION', `Invalid blob ${what}: ${reason}`, { [what]: value });

/** Checks one segment of a key or prefix; `partial` allows the empty trailing segment of a prefix. */
function checkSegment(what: string, value: string, segment: string, partial: boolean): void {
  if (segment === '' && !partial) throw invalid(what, value, 'empty path segment');
  if (segment === '.' || segment === '..') throw invalid(what, value, `"${segment}" segment`);
}

function checkCommon(what: string, value: string): string[] {
  if (typeof value !== 'string' || value.length === 0) throw invalid(what, String(value), 'must be a non-empty string');
  if (value.length > MAX_KEY_LENGTH) throw invalid(what, value, `longer than ${MAX_KEY_LENGTH} characters`);
  if (value.includes('\0')) throw invalid(what, value, 'contains NUL');
  if (value.includes('\\')) throw invalid(what, value, 'contains a backslash');
  if (value.startsWith('/') || path.isAbsolute(value) || /^[a-zA-Z]:/.test(value)) {
    throw invalid(what, value, 'must be relative');
  }
  return value.split('/');
}

/** Throws DomainError('VALIDATION') for a key that could escape the root or is not a plain relative path. */
export function assertSafeBlobKey(key: string): string[] {
  const segments = checkCommon('key', key);
  for (const s of segments) checkSegment('key', key, s, false);
  return segments;
}

/** Same rules as keys, but the last segment may be partial or empty (`org/1/` or `org/1/doc-`). */
function assertSafePrefix(prefix: string): { dirs: string[]; partial: string } {
  const segments = checkCommon('prefix', prefix);
  const partial = segments.pop() as string;
  for (const s of segments) checkSegment('prefix', prefix, s, false);
  checkSegment('prefix', prefix, partial, true);
  return { dirs: segments, partial };
}

const isErrno = (e: unknown, ...codes: string[]): boolean =>
  typeof e === 'object' && e !== null && codes.includes((e as NodeJS.ErrnoException).code ?? '');

export class LocalFolderBlobStore implements BlobStore {
  readonly id = 'local-folder';
  private readonly root: string;

  constructor(options: LocalFolderBlobStoreOptions) {
    if (!options || typeof options.root !== 'string' || options.root.length === 0) {
      throw new DomainError('NOT_CONFIGURED', 'LocalFolderBlobStore needs a root folder');
    }
    this.root = path.resolve(options.root);
  }

  async put(key: string, data: Buffer | Uint8Array, contentType?: string): Promise<BlobObject> {
    const p = this.pathsFor(key);
    const bytes = Buffer.isBuffer(data) ? data : Buffer.from(data.buffer, data.byteOffset, data.byteLength);
    // A concurrent delete may prune the (empty) parent folder between mkdir and the write; retry then.
    for (let attempt = 1; ; attempt++) {
      try {
        await fs.mkdir(p.dir, { recursive: true });
        await this.writeObject(p, bytes, contentType);
        break;
      } catch (e) {
        if (!isErrno(e, 'ENOENT') || attempt >= 3) throw this.ioError('write', key, e);
      }
    }
    return { key, size: bytes.byteLength, ...(contentType !== undefined ? { contentType } : {}) };
  }

  async get(key: string): Promise<Buffer> {
    const p = this.pathsFor(key);
    try {
      return await fs.readFile(p.blob);
    } catch (e) {
      throw this.ioError('read', key, e);
    }
  }

  async stream(key: string): Promise<Readable> {
    const p = this.pathsFor(key);
    try {
      // Opening first makes a missing key fail here, not later on the stream.
      const handle = await fs.open(p.blob, 'r');
      return handle.createReadStream({ autoClose: true });
    } catch (e) {
      throw this.ioError('read', key, e);
    }
  }

  async exists(key: string): Promise<boolean> {
    const p = this.pathsFor(key);
    try {
      return (await fs.stat(p.blob)).isFile();
    } catch (e) {
      if (isErrno(e, 'ENOENT', 'ENOTDIR')) return false;
      throw this.ioError('stat', key, e);
    }
  }

  /** Returns size and contentType of a stored object (not part of the port; handy for tools and tests). */
  async head(key: string): Promise<BlobObject> {
    const p = this.pathsFor(key);
    let size: number;
    let mtimeMs: number;
    try {
      ({ size, mtimeMs } = await fs.stat(p.blob));
    } catch (e) {
      throw this.ioError('stat', key, e);
    }
    const meta = await this.readMeta(p.meta);
    const fresh = meta && meta.size === size && meta.mtimeMs === mtimeMs;
    return { key, size, ...(fresh && meta.contentType !== undefined ? { contentType: meta.contentType } : {}) };
  }

  async delete(key: string): Promise<void> {
    const p = this.pathsFor(key);
    try {
      await fs.rm(p.blob, { force: true });
      await fs.rm(p.meta, { force: true });
    } catch (e) {
      if (!isErrno(e, 'ENOTDIR')) throw this.ioError('delete', key, e);
    }
    await this.pruneEmptyDirs(p.dir);
  }

  async deletePrefix(prefix: string): Promise<number> {
    const { dirs, partial } = assertSafePrefix(prefix);
    const parent = path.join(this.root, ...dirs.map((s) => s + DIR_SUFFIX));
    let entries: string[];
    try {
      entries = await fs.readdir(parent);
    } catch (e) {
      if (isErrno(e, 'ENOENT', 'ENOTDIR')) return 0;
      throw this.ioError('list', prefix, e);
    }
    let count = 0;
    for (const name of entries) {
      const full = path.join(parent, name);
      if (name.endsWith(DIR_SUFFIX) && name.slice(0, -DIR_SUFFIX.length).startsWith(partial)) {
        count += await this.countBlobs(full);
        await fs.rm(full, { recursive: true, force: true });
      } else if (name.endsWith(BLOB_SUFFIX) && name.slice(0, -BLOB_SUFFIX.length).startsWith(partial)) {
        await fs.rm(full, { force: true });
        await fs.rm(full.slice(0, -BLOB_SUFFIX.length) + META_SUFFIX, { force: true });
        count += 1;
      } else if (name.endsWith(META_SUFFIX) && name.slice(0, -META_SUFFIX.length).startsWith(partial)) {
        await fs.rm(full, { force: true }); // orphaned sidecar; in-flight temp files are left alone
      }
    }
    await this.pruneEmptyDirs(parent);
    return count;
  }

  private pathsFor(key: string): ObjectPaths {
    const segments = assertSafeBlobKey(key);
    const name = segments.pop() as string;
    const dir = path.join(this.root, ...segments.map((s) => s + DIR_SUFFIX));
    const base = path.join(dir, name);
    // Belt and braces: the lexical checks above already make this impossible.
    if (!base.startsWith(this.root + path.sep)) throw invalid('key', key, 'escapes the root folder');
    return { dir, blob: base + BLOB_SUFFIX, meta: base + META_SUFFIX };
  }

  /**
   * Writes blob and sidecar to temp files, flushes them, then renames blob first and sidecar second.
   * A crash can never leave a half-written object; at worst (crash between the two renames) the
   * sidecar is stale, which `head` detects by size and mtime and then reports no contentType.
   */
  private async writeObject(p: ObjectPaths, bytes: Buffer, contentType?: string): Promise<void> {
    const tag = `.${process.pid}.${randomBytes(6).toString('hex')}${TMP_SUFFIX}`;
    const blobTmp = p.blob + tag;
    const metaTmp = p.meta + tag;
    try {
      const { size, mtimeMs } = await writeFileDurable(blobTmp, bytes);
      const meta: MetaFile = { ...(contentType !== undefined ? { contentType } : {}), size, mtimeMs };
      await writeFileDurable(metaTmp, Buffer.from(JSON.stringify(meta)));
      await fs.rename(blobTmp, p.blob);
      await fs.rename(metaTmp, p.meta);
    } catch (e) {
      await Promise.all([fs.rm(blobTmp, { force: true }), fs.rm(metaTmp, { force: true })]).catch(() => undefined);
      throw e;
    }
  }

  private async readMeta(file: string): Promise<MetaFile | undefined> {
    try {
      const parsed = JSON.parse(await fs.readFile(file, 'utf8')) as MetaFile;
      return typeof parsed === 'object' && parsed !== null ? parsed : undefined;
    } catch {
      return undefined;
    }
  }

  private async countBlobs(dir: string): Promise<number> {
    let n = 0;
    const entries = await fs.readdir(dir, { withFileTypes: true }).catch(() => []);
    for (const entry of entries) {
      if (entry.isDirectory()) n += await this.countBlobs(path.join(dir, entry.name));
      else if (entry.isFile() && entry.name.endsWith(BLOB_SUFFIX)) n += 1;
    }
    return n;
  }

  /** Removes empty folders from `dir` up to (not including) the root; stops at the first non-empty one. */
  private async pruneEmptyDirs(dir: string): Promise<void> {
    let current = dir;
    while (current.startsWith(this.root + path.sep)) {
      try {
        await fs.rmdir(current);
      } catch {
        return;
      }
      current = path.dirname(current);
    }
  }

  private ioError(action: string, key: string, e: unknown): DomainError {
    if (e instanceof DomainError) return e;
    if (isErrno(e, 'ENOENT', 'ENOTDIR', 'EISDIR') && action !== 'write') {
      return new DomainError('NOT_FOUND', `Blob ${key} not found`, { key });
    }
    const code = (e as NodeJS.ErrnoException)?.code;
    return new DomainError('INTERNAL', `Blob store could not ${action} ${key}`, { key, code });
  }
}

async function writeFileDurable(file: string, bytes: Buffer): Promise<{ size: number; mtimeMs: number }> {
  const handle = await fs.open(file, 'wx');
  try {
    await handle.writeFile(bytes);
    await handle.sync();
    const { size, mtimeMs } = await handle.stat();
    return { size, mtimeMs };
  } finally {
    await handle.close();
  }
}
