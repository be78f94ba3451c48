import { localFolderBlobStore } from '../../adapters/blob/local-folder.adapters';
import { definePort } from '../../adapters/kit/port-registry';
import { s3BlobStore } from '../../adapters/s3/s3.adapters';
import { BLOB_STORE, type BlobStore } from '../../core/ports/blob-store';
import { singleAdapterPort } from './platform-port';

export const blobStoreRegistry = definePort<BlobStore>({
  key: 'BLOB_STORE',
  description: 'Where uploaded originals are kept',
  token: BLOB_STORE,
  adapters: [localFolderBlobStore, s3BlobStore],
});

export const blobStorePort = singleAdapterPort(blobStoreRegistry, BLOB_STORE);
