import { join } from 'node:path';

import type { BlobStore } from '../../core/ports/blob-store';
import { defineAdapter } from '../kit/adapter-definition';

/** BLOB_STORE=local (default): files under DATA_DIR/blobs. */
export const localFolderBlobStore = defineAdapter<BlobStore>({
  id: 'local',
  description: 'A local folder (DATA_DIR/blobs)',
  selectedWhen: [],
  async create(_settings, { dataDir }) {
    const { LocalFolderBlobStore } = await import('./local-folder.blob-store');
    return new LocalFolderBlobStore({ root: join(dataDir, 'blobs') });
  },
});
