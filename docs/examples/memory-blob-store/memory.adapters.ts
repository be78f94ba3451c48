/**
 * The declaration of the example adapter (docs/adding-an-adapter.md): its id, the configuration key it
 * reads, and a factory that imports the implementation only when BLOB_STORE=memory selects it.
 */
import { defineAdapter, setting } from '../../../adapters/kit/adapter-definition';
import type { BlobStore } from '../../../core/ports/blob-store';

export const memoryBlobStore = defineAdapter<BlobStore>({
  id: 'memory',
  description: 'In memory, up to MEMORY_BLOB_MAX_BYTES (lost on restart; demos only)',
  settings: {
    MEMORY_BLOB_MAX_BYTES: { type: 'integer', minimum: 1, default: 67108864, description: 'Bytes the memory blob store keeps' },
  },
  async create(settings) {
    const { MemoryBlobStore } = await import('./memory.blob-store');
    return new MemoryBlobStore({ maxBytes: setting.number(settings, 'MEMORY_BLOB_MAX_BYTES') ?? 67108864 });
  },
});
