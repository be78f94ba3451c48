/**
 * Every source plugin this build discovers gets the standard suite (test/conformance/source-plugin.conformance.ts)
 * against the sample upstream in its folder: a new plugin folder gets it for free.
 */
import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

import { createSourceRegistry } from '../../plugins/sources';
import { sourcePluginConformance } from '../conformance/source-plugin.conformance';
import type { SourceSample } from '../conformance/source-sample';
import { createKnowledgeHarness, type KnowledgeHarness } from '../knowledge/knowledge-harness';

const PLUGIN_DIR = resolve(__dirname, '../../plugins/sources');
const sampleFile = (type: string) => join(PLUGIN_DIR, type, 'test-fixtures', 'sample.ts');

const types = createSourceRegistry().types();
// eslint-disable-next-line @typescript-eslint/no-require-imports
const loadSample = (type: string) => (require(sampleFile(type)) as { default: SourceSample }).default;
const samples = new Map(types.filter((t) => existsSync(sampleFile(t))).map((t) => [t, loadSample(t)] as const));
const secrets: Record<string, string> = Object.assign({}, ...[...samples.values()].map((s) => s.secrets ?? {}));
const registry = createSourceRegistry({ secrets: (name) => secrets[name] });

let harness: KnowledgeHarness;
beforeAll(async () => {
  harness = await createKnowledgeHarness();
}, 180_000);
afterAll(() => harness?.close());

it('finds the source plugins, and each folder plugin ships its sample upstream', () => {
  expect(types.length).toBeGreaterThan(0);
  expect(types.filter((t) => !samples.has(t)).map((t) => `plugins/sources/${t}/test-fixtures/sample.ts is missing`)).toEqual([]);
});

for (const type of types) {
  sourcePluginConformance(type, () => ({
    registry,
    sample: samples.get(type) ?? null,
    folder: join(PLUGIN_DIR, type),
    knowledge: () => harness,
  }));
}
