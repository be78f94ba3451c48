/**
 * The worked example of docs/adding-an-adapter.md, built as the guide says: the memory blob store
 * (docs/examples/memory-blob-store) joins the BLOB_STORE port with one entry, passes the port's conformance
 * suite, and is chosen, validated and listed by the one configuration loader.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { ConfigError } from '../../adapters/config/load-config';
import { loadConfig as loadWith } from '../../adapters/config/load-config';
import { definePort } from '../../adapters/kit/port-registry';
import { configSections, loadConfig, portsSection } from '../../app/configuration';
import { blobStoreRegistry } from '../../app/ports/blob-store.port';
import { singleAdapterPort } from '../../app/ports/platform-port';
import { BLOB_STORE, type BlobStore } from '../../core/ports/blob-store';
import { memoryBlobStore } from '../../docs/examples/memory-blob-store/memory.adapters';
import { blobStoreConformance, type BlobStoreUnderTest } from '../conformance/blob-store.conformance';

/** app/ports/blob-store.port.ts with the guide's one added entry. */
const registry = definePort<BlobStore>({
  ...blobStoreRegistry.definition,
  adapters: [...blobStoreRegistry.definition.adapters, memoryBlobStore],
});
const context = { dataDir: tmpdir(), log: () => undefined, db: undefined as never };

blobStoreConformance('memory (docs example)', {
  create: async () =>
    (await registry.createOne({ BLOB_STORE: 'memory', MEMORY_BLOB_MAX_BYTES: 64 * 1024 * 1024 }, context)).instance as BlobStoreUnderTest,
});

describe('the example adapter through the configuration loader', () => {
  let dataDir: string;
  beforeAll(() => {
    dataDir = mkdtempSync(join(tmpdir(), 'adapter-guide-'));
  });
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  const ports = () => [
    portsSection([singleAdapterPort(registry, BLOB_STORE)]),
    ...configSections().slice(1), // the plugins section as in production
  ];
  const load = (env: Record<string, string>) => loadWith('start', { DATA_DIR: dataDir, ...env }, ports());

  it('is chosen by its id, its key validated with the rest and its default applied', async () => {
    const config = load({ BLOB_STORE: 'memory' });
    expect(config.settings.MEMORY_BLOB_MAX_BYTES).toBe(67108864);
    const { definition, instance } = await registry.createOne(config.settings, context);
    expect(definition.id).toBe('memory');
    await instance.put('org/a.txt', Buffer.from('hello'));
    expect((await instance.get('org/a.txt')).toString()).toBe('hello');
  });

  it('lists a bad value of its key and an unknown id with every other problem', () => {
    const problems = (() => {
      try {
        load({ BLOB_STORE: 'memory', MEMORY_BLOB_MAX_BYTES: 'lots', PORT: 'abc' });
      } catch (e) {
        return (e as ConfigError).problems;
      }
      return [];
    })();
    expect(problems.map((p) => p.split(':')[0]).sort()).toEqual(['MEMORY_BLOB_MAX_BYTES', 'PORT']);
    expect(() => load({ BLOB_STORE: 'floppy' })).toThrow(/BLOB_STORE: must be equal to one of the allowed values \(local, s3, memory\)/);
  });

  it('is not offered by this build until its entry is added (the production port is unchanged)', () => {
    expect(() => loadConfig('start', { DATA_DIR: dataDir, BLOB_STORE: 'memory' })).toThrow(/allowed values \(local, s3\)/);
  });
});
