import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

import { DeleteObjectsCommand, HeadObjectCommand, ListObjectsV2Command, PutObjectCommand, S3Client } from '@aws-sdk/client-s3';
import Ajv from 'ajv';

import { DomainError } from '../../core/shared/errors';
import { blobStoreConformance } from '../../test/conformance/blob-store.conformance';
import { S3BlobStore, s3BlobStoreOptionsSchema } from './s3.blob-store';

const BUCKET = 'blob-conformance';

/*
 * s3rver runs in a child process started with --openssl-legacy-provider: it encrypts ListObjectsV2
 * continuation tokens with DES, which Node 17+ (OpenSSL 3) refuses by default, so any truncated
 * listing (more than 1000 keys) fails with a 500 when s3rver runs inside the jest worker.
 */
const S3RVER_MAIN = require.resolve('s3rver');
const CHILD_SCRIPT = `
const S3rver = require(process.env.S3RVER_MAIN);
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
// S3 replaces an object atomically; s3rver truncates the file and rewrites it in place (and may answer before
// it is written), so concurrent puts to one key could leave a mix of versions. Written beside it, then renamed.
const Store = require(path.join(path.dirname(process.env.S3RVER_MAIN), 'stores', 'filesystem.js'));
Store.prototype.putObject = async function (object) {
  const chunks = [];
  if (Buffer.isBuffer(object.content)) chunks.push(object.content);
  else for await (const chunk of object.content) chunks.push(chunk);
  const content = Buffer.concat(chunks);
  const objectPath = this.getResourcePath(object.bucket, object.key, 'object');
  await fs.promises.mkdir(path.dirname(objectPath), { recursive: true });
  const written = objectPath + '.' + crypto.randomBytes(6).toString('hex') + '.tmp';
  await fs.promises.writeFile(written, content);
  await fs.promises.rename(written, objectPath);
  const md5 = crypto.createHash('md5').update(content).digest('hex');
  await this.putMetadata(object.bucket, object.key, object.metadata, md5);
  return { size: content.length, md5 };
};
const server = new S3rver({
  address: '127.0.0.1', port: 0, silent: true,
  directory: process.env.S3RVER_DIR, configureBuckets: [{ name: process.env.S3RVER_BUCKET }],
});
server.run().then((addr) => process.stdout.write(JSON.stringify({ port: addr.port }) + '\\n'));
process.stdin.resume();
process.stdin.on('end', () => server.close().finally(() => process.exit(0)));
`;

interface RunningS3rver {
  endpoint: string;
  stop: () => Promise<void>;
}

/** Starts s3rver on 127.0.0.1 (random port) over a temp folder, with the bucket already created. */
async function startS3rver(): Promise<RunningS3rver> {
  const directory = await fs.mkdtemp(path.join(os.tmpdir(), 's3rver-'));
  const child = spawn(process.execPath, ['--openssl-legacy-provider', '-e', CHILD_SCRIPT], {
    env: { ...process.env, S3RVER_MAIN, S3RVER_DIR: directory, S3RVER_BUCKET: BUCKET },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const port = await new Promise<number>((resolve, reject) => {
    let out = '';
    child.stdout.on('data', (d: Buffer) => {
      out += d.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n')) resolve((JSON.parse(line) as { port: number }).port);
    });
    child.once('exit', (code) => reject(new Error(`s3rver exited (${code}): ${stderr}`)));
  });
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: async () => {
      child.stdin.end(); // the child closes the server and exits when its stdin ends
      await exited;
      await fs.rm(directory, { recursive: true, force: true });
    },
  };
}

let server: RunningS3rver | undefined;

blobStoreConformance('s3 (s3rver)', {
  create: async () => {
    server = await startS3rver();
    // Built from plain options, as the configuration loader would (s3rver's fixed S3RVER/S3RVER key).
    return new S3BlobStore({
      bucket: BUCKET,
      region: 'us-east-1',
      endpoint: server.endpoint,
      forcePathStyle: true,
      accessKeyId: 'S3RVER',
      secretAccessKey: 'S3RVER',
    });
  },
  destroy: async () => {
    await server?.stop();
  },
});

describe('S3BlobStore against s3rver with an injected client', () => {
  let srv: RunningS3rver;
  let client: S3Client;

  beforeAll(async () => {
    srv = await startS3rver();
    client = new S3Client({
      region: 'us-east-1',
      endpoint: srv.endpoint,
      forcePathStyle: true,
      credentials: { accessKeyId: 'S3RVER', secretAccessKey: 'S3RVER' },
    });
  });
  afterAll(async () => {
    client.destroy();
    await srv.stop();
  });

  it('uses the injected client and stores contentType as S3 metadata', async () => {
    const store = new S3BlobStore({ bucket: BUCKET, region: 'ignored', client });
    await store.put('org-a/x.json', Buffer.from('{}'), 'application/json');
    const head = await client.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'org-a/x.json' }));
    expect(head.ContentType).toBe('application/json');
    expect(head.ContentLength).toBe(2);
  });

  it('deletePrefix pages through more than one listing page on a real server', async () => {
    const store = new S3BlobStore({ bucket: BUCKET, region: 'us-east-1', client });
    const keys = Array.from({ length: 1005 }, (_, i) => `org-paging/${String(i).padStart(4, '0')}`);
    for (let i = 0; i < keys.length; i += 50) {
      await Promise.all(keys.slice(i, i + 50).map((k) => client.send(new PutObjectCommand({ Bucket: BUCKET, Key: k, Body: 'x' }))));
    }
    await store.put('org-paging-other/keep', Buffer.from('k'));
    expect(await store.deletePrefix('org-paging/')).toBe(1005);
    const left = await client.send(new ListObjectsV2Command({ Bucket: BUCKET, Prefix: 'org-paging' }));
    expect((left.Contents ?? []).map((o) => o.Key)).toEqual(['org-paging-other/keep']);
  });

  it('maps a missing bucket to UPSTREAM_FAILED, not NOT_FOUND', async () => {
    const store = new S3BlobStore({ bucket: 'no-such-bucket', region: 'us-east-1', client });
    const err = await store.get('k').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(DomainError);
    expect((err as DomainError).code).toBe('UPSTREAM_FAILED');
  });
});

/** A scripted client: records commands and answers ListObjectsV2 / DeleteObjects from memory. */
function fakeClient(total: number, failKey?: string) {
  const keys = Array.from({ length: total }, (_, i) => `org/${String(i).padStart(5, '0')}`);
  const sent: Array<{ name: string; input: Record<string, unknown> }> = [];
  const client = {
    send: async (cmd: { constructor: { name: string }; input: Record<string, unknown> }) => {
      sent.push({ name: cmd.constructor.name, input: cmd.input });
      if (cmd instanceof ListObjectsV2Command) {
        const start = Number(cmd.input.ContinuationToken ?? 0);
        const max = cmd.input.MaxKeys ?? 1000;
        const page = keys.slice(start, start + max);
        const next = start + page.length;
        return { Contents: page.map((Key) => ({ Key })), IsTruncated: next < keys.length, NextContinuationToken: String(next) };
      }
      if (cmd instanceof DeleteObjectsCommand) {
        const objects = cmd.input.Delete?.Objects ?? [];
        const failed = objects.filter((o) => o.Key === failKey);
        return { Errors: failed.map((o) => ({ Key: o.Key, Code: 'AccessDenied', Message: 'no' })) };
      }
      throw Object.assign(new Error('unexpected'), { name: 'Unexpected' });
    },
  };
  return { client: client as unknown as S3Client, sent };
}

describe('S3BlobStore deletePrefix batching (scripted client)', () => {
  it('lists with the prefix and deletes in batches of at most 1000', async () => {
    const { client, sent } = fakeClient(2500);
    const store = new S3BlobStore({ bucket: 'b', region: 'r', client });
    expect(await store.deletePrefix('org/')).toBe(2500);
    const lists = sent.filter((s) => s.name === 'ListObjectsV2Command');
    const deletes = sent.filter((s) => s.name === 'DeleteObjectsCommand');
    expect(lists.map((l) => l.input.Prefix)).toEqual(['org/', 'org/', 'org/']);
    expect(lists.map((l) => l.input.ContinuationToken)).toEqual([undefined, '1000', '2000']);
    const sizes = deletes.map((d) => ((d.input.Delete as { Objects: unknown[] }).Objects ?? []).length);
    expect(sizes).toEqual([1000, 1000, 500]);
  });

  it('reports per-key delete errors as UPSTREAM_FAILED', async () => {
    const { client } = fakeClient(10, 'org/00003');
    const store = new S3BlobStore({ bucket: 'b', region: 'r', client });
    const err = await store.deletePrefix('org/').then(
      () => undefined,
      (e: unknown) => e,
    );
    expect((err as DomainError).code).toBe('UPSTREAM_FAILED');
    expect(JSON.stringify((err as DomainError).details)).toContain('org/00003');
  });

  it('refuses an empty prefix instead of emptying the bucket', async () => {
    const { client, sent } = fakeClient(3);
    const store = new S3BlobStore({ bucket: 'b', region: 'r', client });
    await expect(store.deletePrefix('')).rejects.toMatchObject({ code: 'VALIDATION' });
    expect(sent).toEqual([]);
  });
});

describe('s3BlobStoreOptionsSchema', () => {
  const validate = new Ajv({ strict: true }).compile(s3BlobStoreOptionsSchema);

  it('accepts AWS and S3-compatible configurations', () => {
    expect(validate({ bucket: 'uploads', region: 'eu-west-1' })).toBe(true);
    expect(
      validate({
        bucket: 'uploads',
        region: 'auto',
        endpoint: 'http://127.0.0.1:9000',
        forcePathStyle: true,
        accessKeyId: 'a',
        secretAccessKey: 'b',
      }),
    ).toBe(true);
  });

  it('rejects missing bucket or region, half credentials, bad endpoints and unknown keys', () => {
    expect(validate({ region: 'eu-west-1' })).toBe(false);
    expect(validate({ bucket: 'uploads' })).toBe(false);
    expect(validate({ bucket: 'uploads', region: 'r', accessKeyId: 'a' })).toBe(false);
    expect(validate({ bucket: 'uploads', region: 'r', endpoint: 'localhost:9000' })).toBe(false);
    expect(validate({ bucket: 'uploads', region: 'r', bucketName: 'x' })).toBe(false);
  });
});
