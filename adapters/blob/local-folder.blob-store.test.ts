import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import Ajv from 'ajv';

import { DomainError } from '../../core/shared/errors';
import { blobStoreConformance } from '../../test/conformance/blob-store.conformance';
import { LocalFolderBlobStore, localFolderBlobStoreOptionsSchema } from './local-folder.blob-store';

let root = '';

blobStoreConformance('local folder', {
  create: async () => {
    root = await fs.mkdtemp(path.join(os.tmpdir(), 'blob-local-conf-'));
    return new LocalFolderBlobStore({ root });
  },
  destroy: () => fs.rm(root, { recursive: true, force: true }),
});

/** Every file below `dir`, as paths relative to `top` (defaults to `dir`). */
async function listFiles(dir: string, top = dir): Promise<string[]> {
  const out: string[] = [];
  for (const e of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, e.name);
    if (e.isDirectory()) out.push(...(await listFiles(full, top)));
    else out.push(path.relative(top, full));
  }
  return out;
}

describe('LocalFolderBlobStore specifics', () => {
  let base: string;
  let store: LocalFolderBlobStore;

  beforeEach(async () => {
    base = await fs.mkdtemp(path.join(os.tmpdir(), 'blob-local-'));
    store = new LocalFolderBlobStore({ root: path.join(base, 'root') });
  });
  afterEach(() => fs.rm(base, { recursive: true, force: true }));

  const badKeys = [
    '',
    '../escape',
    'a/../../escape',
    'a/..',
    '..',
    './a',
    'a/./b',
    '/etc/passwd',
    'a\\..\\..\\b',
    'a\\b',
    'a\0b',
    'a//b',
    'a/',
    'C:/windows',
    'x'.repeat(1025),
  ];

  it.each(badKeys)('refuses the unsafe key %j with VALIDATION on every operation', async (key) => {
    const ops = [
      () => store.put(key, Buffer.from('x')),
      () => store.get(key),
      () => store.stream(key),
      () => store.exists(key),
      () => store.head(key),
      () => store.delete(key),
    ];
    for (const op of ops) {
      const err = await op().then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DomainError);
      expect((err as DomainError).code).toBe('VALIDATION');
    }
    // Nothing was written anywhere, inside or outside the root.
    expect(await fs.readdir(base)).toEqual([]);
  });

  it.each(['', '../', '/abs', 'a/../', 'a\\b/', 'a//', '..'])('deletePrefix refuses the unsafe prefix %j', async (prefix) => {
    const err = await store.deletePrefix(prefix).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('VALIDATION');
  });

  it('accepts ordinary keys with dots, spaces and unicode inside segments', async () => {
    for (const key of ['org/1/file.tar.gz', 'org/1/a..b', 'org/1/..hidden', 'org/1/my report (1).pdf', 'org/1/Résumé.docx']) {
      await store.put(key, Buffer.from(key));
      expect((await store.get(key)).toString()).toBe(key);
    }
  });

  it('keeps objects, sidecars and folders inside the root and lays them out predictably', async () => {
    await store.put('org/1/a.pdf', Buffer.from('pdf'), 'application/pdf');
    const files = await listFiles(path.join(base, 'root'));
    expect(files.sort()).toEqual([path.join('org.d', '1.d', 'a.pdf.blob'), path.join('org.d', '1.d', 'a.pdf.meta.json')]);
    const meta = JSON.parse(await fs.readFile(path.join(base, 'root', 'org.d', '1.d', 'a.pdf.meta.json'), 'utf8'));
    expect(meta.contentType).toBe('application/pdf');
  });

  it('keys whose names look like internal suffixes do not collide with sidecars or folders', async () => {
    await store.put('x', Buffer.from('x'), 'text/plain');
    await store.put('x.meta.json', Buffer.from('not meta'), 'application/json');
    await store.put('x.d/y', Buffer.from('under x.d'));
    await store.put('x/y', Buffer.from('under x'));
    await store.put('x.blob', Buffer.from('x.blob'));
    expect((await store.get('x')).toString()).toBe('x');
    expect((await store.head('x')).contentType).toBe('text/plain');
    expect((await store.get('x.meta.json')).toString()).toBe('not meta');
    expect((await store.get('x.d/y')).toString()).toBe('under x.d');
    expect((await store.get('x/y')).toString()).toBe('under x');
    expect((await store.get('x.blob')).toString()).toBe('x.blob');
    expect(await store.deletePrefix('x/')).toBe(1);
    expect(await store.exists('x.d/y')).toBe(true);
  });

  it('leaves no temp files behind after writes', async () => {
    for (let i = 0; i < 5; i++) await store.put('org/1/a', Buffer.alloc(1000, i), 'text/plain');
    const files = await listFiles(path.join(base, 'root'));
    expect(files.filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  // Root ignores folder permissions, so this case only runs for an ordinary user (as CI does).
  const asUser = process.getuid?.() === 0 ? it.skip : it;
  asUser('a failed write leaves the previous version intact and no temp file', async () => {
    await store.put('org/1/a', Buffer.from('v1'), 'text/plain');
    const dir = path.join(base, 'root', 'org.d', '1.d');
    await fs.chmod(dir, 0o500); // no new files in the folder: the temp file cannot be created
    try {
      await expect(store.put('org/1/a', Buffer.from('v2-much-longer'), 'text/html')).rejects.toMatchObject({
        code: 'INTERNAL',
      });
    } finally {
      await fs.chmod(dir, 0o700);
    }
    expect((await store.get('org/1/a')).toString()).toBe('v1');
    expect((await store.head('org/1/a')).contentType).toBe('text/plain');
    expect((await listFiles(path.join(base, 'root'))).filter((f) => f.endsWith('.tmp'))).toEqual([]);
  });

  it('a write that fails at the rename cleans up its temp files and reports INTERNAL', async () => {
    // A foreign, non-empty folder squatting on the object's file name makes the rename fail.
    const squat = path.join(base, 'root', 'org.d', '1.d', 'a.blob');
    await fs.mkdir(squat, { recursive: true });
    await fs.writeFile(path.join(squat, 'foreign'), 'x');
    await expect(store.put('org/1/a', Buffer.from('data'), 'text/plain')).rejects.toMatchObject({ code: 'INTERNAL' });
    const files = await listFiles(path.join(base, 'root'));
    expect(files).toEqual([path.join('org.d', '1.d', 'a.blob', 'foreign')]);
  });

  it('ignores a stale sidecar left by a crash between the two renames', async () => {
    await store.put('org/1/a', Buffer.from('old'), 'text/plain');
    // Simulate the crash window: the new bytes landed, the sidecar still describes the old ones.
    const blob = path.join(base, 'root', 'org.d', '1.d', 'a.blob');
    await fs.writeFile(blob, Buffer.from('new bytes!'));
    await fs.utimes(blob, new Date(), new Date(Date.now() + 5000));
    expect(await store.head('org/1/a')).toEqual({ key: 'org/1/a', size: 10 });
    expect((await store.get('org/1/a')).toString()).toBe('new bytes!');
  });

  it('an object without contentType has none, and put does not invent one', async () => {
    expect(await store.put('org/1/raw', Buffer.from('r'))).toEqual({ key: 'org/1/raw', size: 1 });
    expect(await store.head('org/1/raw')).toEqual({ key: 'org/1/raw', size: 1 });
  });

  it('delete and deletePrefix prune empty folders but never the root', async () => {
    await store.put('org/1/docs/a', Buffer.from('a'));
    await store.put('org/2/b', Buffer.from('b'));
    await store.delete('org/1/docs/a');
    expect(await fs.readdir(path.join(base, 'root', 'org.d'))).toEqual(['2.d']);
    expect(await store.deletePrefix('org/')).toBe(1);
    expect(await fs.readdir(path.join(base, 'root'))).toEqual([]);
  });

  it('the options schema accepts a root and rejects anything else', () => {
    const ajv = new Ajv({ strict: true });
    const validate = ajv.compile(localFolderBlobStoreOptionsSchema);
    expect(validate({ root: './data/blobs' })).toBe(true);
    expect(validate({})).toBe(false);
    expect(validate({ root: '' })).toBe(false);
    expect(validate({ root: '/x', extra: 1 })).toBe(false);
  });

  it('refuses to start without a root', () => {
    expect(() => new LocalFolderBlobStore({ root: '' })).toThrow(DomainError);
  });
});
