import { Readable } from 'node:stream';

import {
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  PutObjectCommand,
  S3Client,
  type S3ClientConfig,
} from '@aws-sdk/client-s3';

import type { BlobObject, BlobStore } from '../../core/ports/blob-store';
import { DomainError } from '../../core/shared/errors';

export interface S3BlobStoreOptions {
  bucket: string;
  region: string;
  /** S3-compatible endpoint (MinIO, R2, s3rver...); omit for AWS. */
  endpoint?: string;
  /** Path-style URLs (`endpoint/bucket/key`), needed by most S3-compatible servers. */
  forcePathStyle?: boolean;
  /** Static credentials; omit both to use the SDK's default provider chain (env, profile, IAM role). */
  accessKeyId?: string;
  secretAccessKey?: string;
  /** Pre-built client (tests, custom middleware). When given, the connection options above are ignored. */
  client?: S3Client;
}

/** JSON schema (ajv, draft-07) for the configurable options; `client` is code-only and not part of it. */
export const s3BlobStoreOptionsSchema = {
  type: 'object',
  properties: {
    bucket: { type: 'string', minLength: 3, maxLength: 63 },
    region: { type: 'string', minLength: 1 },
    endpoint: { type: 'string', pattern: '^https?://' },
    forcePathStyle: { type: 'boolean' },
    accessKeyId: { type: 'string', minLength: 1 },
    secretAccessKey: { type: 'string', minLength: 1 },
  },
  required: ['bucket', 'region'],
  dependencies: {
    accessKeyId: ['secretAccessKey'],
    secretAccessKey: ['accessKeyId'],
  },
  additionalProperties: false,
} as const;

/** S3 DeleteObjects accepts at most 1000 keys per request. */
export const S3_DELETE_BATCH = 1000;

interface S3ErrorShape {
  name?: string;
  Code?: string;
  message?: string;
  $metadata?: { httpStatusCode?: number };
}

export class S3BlobStore implements BlobStore {
  readonly id = 's3';
  private readonly client: S3Client;
  private readonly bucket: string;

  constructor(options: S3BlobStoreOptions) {
    if (!options?.bucket) throw new DomainError('NOT_CONFIGURED', 'S3BlobStore needs a bucket');
    this.bucket = options.bucket;
    this.client = options.client ?? new S3Client(clientConfig(options));
  }

  async put(key: string, data: Buffer | Uint8Array, contentType?: string): Promise<BlobObject> {
    checkKey('key', key);
    await this.send(key, () =>
      this.client.send(
        new PutObjectCommand({
          Bucket: this.bucket,
          Key: key,
          Body: data,
          ContentLength: data.byteLength,
          ...(contentType !== undefined ? { ContentType: contentType } : {}),
        }),
      ),
    );
    return { key, size: data.byteLength, ...(contentType !== undefined ? { contentType } : {}) };
  }

  async get(key: string): Promise<Buffer> {
    const body = await this.getBody(key);
    const bytes = await body.transformToByteArray();
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  async stream(key: string): Promise<Readable> {
    const body = await this.getBody(key);
    // In Node the SDK returns an http.IncomingMessage (a Readable) with SDK mixins.
    if (body instanceof Readable) return body;
    return Readable.from(Buffer.from(await body.transformToByteArray()));
  }

  async exists(key: string): Promise<boolean> {
    try {
      await this.head(key);
      return true;
    } catch (e) {
      if (e instanceof DomainError && e.code === 'NOT_FOUND') return false;
      throw e;
    }
  }

  /** Size and contentType of a stored object (not part of the port). */
  async head(key: string): Promise<BlobObject> {
    checkKey('key', key);
    const out = await this.send(key, () => this.client.send(new HeadObjectCommand({ Bucket: this.bucket, Key: key })));
    return {
      key,
      size: out.ContentLength ?? 0,
      ...(out.ContentType !== undefined ? { contentType: out.ContentType } : {}),
    };
  }

  async delete(key: string): Promise<void> {
    checkKey('key', key);
    await this.send(key, () => this.client.send(new DeleteObjectCommand({ Bucket: this.bucket, Key: key })));
  }

  async deletePrefix(prefix: string): Promise<number> {
    checkKey('prefix', prefix);
    let deleted = 0;
    let token: string | undefined;
    do {
      const page = await this.send(prefix, () =>
        this.client.send(
          new ListObjectsV2Command({
            Bucket: this.bucket,
            Prefix: prefix,
            MaxKeys: S3_DELETE_BATCH,
            ...(token ? { ContinuationToken: token } : {}),
          }),
        ),
      );
      const keys = (page.Contents ?? []).map((o) => o.Key).filter((k): k is string => typeof k === 'string');
      for (let i = 0; i < keys.length; i += S3_DELETE_BATCH) {
        deleted += await this.deleteBatch(prefix, keys.slice(i, i + S3_DELETE_BATCH));
      }
      token = page.IsTruncated ? page.NextContinuationToken : undefined;
    } while (token);
    return deleted;
  }

  private async deleteBatch(prefix: string, keys: string[]): Promise<number> {
    if (keys.length === 0) return 0;
    const out = await this.send(prefix, () =>
      this.client.send(
        new DeleteObjectsCommand({
          Bucket: this.bucket,
          Delete: { Objects: keys.map((Key) => ({ Key })), Quiet: true },
        }),
      ),
    );
    const errors = out.Errors ?? [];
    if (errors.length > 0) {
      throw new DomainError('UPSTREAM_FAILED', `S3 could not delete ${errors.length} object(s) under ${prefix}`, {
        prefix,
        errors: errors.slice(0, 10).map((e) => ({ key: e.Key, code: e.Code, message: e.Message })),
      });
    }
    return keys.length;
  }

  private async getBody(key: string) {
    checkKey('key', key);
    const out = await this.send(key, () => this.client.send(new GetObjectCommand({ Bucket: this.bucket, Key: key })));
    if (!out.Body) throw new DomainError('UPSTREAM_FAILED', `S3 returned no body for ${key}`, { key });
    return out.Body;
  }

  private async send<T>(key: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call();
    } catch (e) {
      throw mapS3Error(e, key, this.bucket);
    }
  }
}

function clientConfig(o: S3BlobStoreOptions): S3ClientConfig {
  return {
    region: o.region,
    ...(o.endpoint ? { endpoint: o.endpoint } : {}),
    ...(o.forcePathStyle !== undefined ? { forcePathStyle: o.forcePathStyle } : {}),
    ...(o.accessKeyId && o.secretAccessKey ? { credentials: { accessKeyId: o.accessKeyId, secretAccessKey: o.secretAccessKey } } : {}),
  };
}

function checkKey(what: 'key' | 'prefix', value: string): void {
  if (typeof value !== 'string' || value.length === 0) {
    throw new DomainError('VALIDATION', `Invalid blob ${what}: must be a non-empty string`, { [what]: value });
  }
}

/** NoSuchKey / NotFound / 404 become NOT_FOUND; everything else (including NoSuchBucket) UPSTREAM_FAILED. */
export function mapS3Error(e: unknown, key: string, bucket: string): DomainError {
  if (e instanceof DomainError) return e;
  const err = (e ?? {}) as S3ErrorShape;
  const name = err.name ?? err.Code;
  const status = err.$metadata?.httpStatusCode;
  if (name === 'NoSuchKey' || name === 'NotFound' || (status === 404 && name !== 'NoSuchBucket')) {
    return new DomainError('NOT_FOUND', `Blob ${key} not found`, { key });
  }
  return new DomainError('UPSTREAM_FAILED', `S3 request for ${key} failed: ${name ?? 'error'}`, {
    key,
    bucket,
    name,
    status,
    message: err.message,
  });
}
