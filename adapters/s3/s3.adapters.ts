import type { BlobStore } from '../../core/ports/blob-store';
import { defineAdapter, setting } from '../kit/adapter-definition';

/** BLOB_STORE=s3: any S3-compatible endpoint. */
export const s3BlobStore = defineAdapter<BlobStore>({
  id: 's3',
  description: 'S3 or an S3-compatible endpoint (MinIO, R2...)',
  settings: {
    S3_BUCKET: { type: 'string' },
    S3_REGION: { type: 'string', default: 'us-east-1' },
    S3_ENDPOINT: { type: 'string', format: 'uri' },
    S3_FORCE_PATH_STYLE: { type: 'boolean', default: false },
    S3_ACCESS_KEY_ID: { type: 'string' },
    S3_SECRET_ACCESS_KEY: { type: 'string' },
  },
  requires: ['S3_BUCKET'],
  async create(settings) {
    const { S3BlobStore } = await import('./s3.blob-store');
    return new S3BlobStore({
      bucket: setting.requiredString(settings, 'S3_BUCKET'),
      region: setting.string(settings, 'S3_REGION') ?? 'us-east-1',
      endpoint: setting.string(settings, 'S3_ENDPOINT'),
      forcePathStyle: setting.boolean(settings, 'S3_FORCE_PATH_STYLE') ?? false,
      accessKeyId: setting.string(settings, 'S3_ACCESS_KEY_ID'),
      secretAccessKey: setting.string(settings, 'S3_SECRET_ACCESS_KEY'),
    });
  },
});
