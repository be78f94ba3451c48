import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { OpenRouterModelListing } from '../../adapters/openrouter/openrouter.model-listing';
import { type Database, openDatabase } from '../../adapters/postgres/database';
import { KnexStore } from '../../adapters/postgres/knex-store';
import { relationalMigrations } from '../../adapters/postgres/migrations';
import { migrate } from '../../adapters/postgres/migrator';
import type { Actor } from '../../core/identity/actor';
import {
  type CatalogueDeps,
  ensureCatalogue,
  freeModels,
  getModel,
  inputModalitiesOf,
  listModels,
  modelsForUseCase,
  modelsOfProvider,
  searchModels,
  syncModels,
  validateModel,
} from '../../core/models/catalogue';

const admin: Actor = { userId: 'u', email: 'a@x', displayName: 'A', platformRole: 'superadmin', organizationId: null, orgRole: null };
const member: Actor = { ...admin, platformRole: 'user' };

let db: Database;
let deps: CatalogueDeps;
let listing: { data: unknown[] };
let upstream: http.Server;
let upstreamUrl: string;

beforeAll(async () => {
  db = await openDatabase({ memory: true });
  await migrate(db.knex, [relationalMigrations]);
  deps = { store: new KnexStore(db.knex), clock: { now: () => new Date('2026-11-01T00:00:00Z') }, listing: null };
  upstream = http.createServer((_req, res) => {
    res.setHeader('content-type', 'application/json');
    res.end(JSON.stringify(listing));
  });
  await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
  upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}/api/v1/models`;
});

afterAll(async () => {
  upstream.close();
  await db.close();
});

test('an empty catalogue is seeded from the bundled snapshot, once', async () => {
  await ensureCatalogue(deps);
  const first = await listModels(deps);
  await ensureCatalogue(deps);
  expect(await listModels(deps)).toHaveLength(first.length);
  expect(first.length).toBeGreaterThan(10);
  expect(first.map((m) => m.id)).toContain('local/extractive');
});

test('filters: free, provider, use case, search, and one model by id', async () => {
  const free = await freeModels(deps);
  expect(free.length).toBeGreaterThan(0);
  expect(free.every((m) => m.isFree && m.promptPricePerToken === 0)).toBe(true);
  expect((await modelsOfProvider(deps, 'OpenAI')).every((m) => m.provider === 'openai')).toBe(true);
  const coding = await modelsForUseCase(deps, 'coding');
  expect(coding.length).toBeGreaterThan(1);
  expect(coding[0].recommendationScore).toBeGreaterThanOrEqual(coding[coding.length - 1].recommendationScore);
  expect((await searchModels(deps, 'gpt 4o')).map((m) => m.id)).toEqual(expect.arrayContaining(['openai/gpt-4o', 'openai/gpt-4o-mini']));
  expect((await getModel(deps, 'openai/gpt-4o')).contextLength).toBe(128000);
  await expect(getModel(deps, 'nobody/nothing')).rejects.toMatchObject({ code: 'NOT_FOUND' });
});

test('validation and input modalities come from the catalogue', async () => {
  expect(await validateModel(deps, 'openai/gpt-4o')).toMatchObject({ valid: true, supportsChat: true });
  expect(await validateModel(deps, 'openai/text-embedding-3-large')).toMatchObject({ valid: false, supportsChat: false });
  expect(await validateModel(deps, 'x/y')).toMatchObject({ valid: false, exists: false });
  expect(await inputModalitiesOf(deps, 'openai/gpt-4o')).toEqual(['text', 'image']);
  expect(await inputModalitiesOf(deps, 'unknown/model')).toEqual(['text']);
});

test('sync from an OpenRouter-style listing updates prices and deactivates vanished models of the listed providers', async () => {
  listing = {
    data: [
      {
        id: 'openai/gpt-4o',
        name: 'GPT-4o (2026)',
        context_length: 256000,
        pricing: { prompt: '0.000002', completion: '0.000008' },
        architecture: { input_modalities: ['text', 'image', 'file'], output_modalities: ['text'] },
        supported_parameters: ['tools'],
      },
      {
        id: 'openai/gpt-5',
        name: 'GPT-5',
        context_length: 400000,
        pricing: { prompt: '0.00000125', completion: '0.00001' },
        architecture: { input_modalities: ['text', 'image'], output_modalities: ['text'] },
      },
      { id: 'no-slash-id', name: 'ignored' },
    ],
  };
  const synced = { ...deps, listing: new OpenRouterModelListing({ url: upstreamUrl }) };
  await expect(syncModels(synced, member)).rejects.toMatchObject({ code: 'FORBIDDEN' });
  const result = await syncModels(synced, admin);
  expect(result).toMatchObject({ status: 'completed', source: 'openrouter', count: 2 });
  expect(result.deactivated).toBeGreaterThan(0);
  const gpt4o = await getModel(deps, 'openai/gpt-4o');
  expect(gpt4o).toMatchObject({
    name: 'GPT-4o (2026)',
    contextLength: 256000,
    promptPricePerToken: 0.000002,
    lastSyncedAt: '2026-11-01T00:00:00.000Z',
  });
  expect(gpt4o.capabilities.inputModalities).toEqual(['text', 'image', 'file']);
  expect((await getModel(deps, 'openai/gpt-4o-mini')).isActive).toBe(false);
  expect((await listModels(deps)).map((m) => m.id)).not.toContain('openai/gpt-4o-mini');
  expect((await listModels(deps, true)).map((m) => m.id)).toContain('openai/gpt-4o-mini');
  expect((await getModel(deps, 'cohere/command-r')).isActive).toBe(true);
});

test('a broken or empty listing leaves the catalogue unchanged', async () => {
  listing = { data: [] };
  const synced = { ...deps, listing: new OpenRouterModelListing({ url: upstreamUrl }) };
  const before = await listModels(deps, true);
  await expect(syncModels(synced, admin)).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
  await expect(
    syncModels({ ...deps, listing: new OpenRouterModelListing({ url: 'http://127.0.0.1:1/models', timeoutMs: 2000 }) }, admin),
  ).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
  expect(await listModels(deps, true)).toEqual(before);
});
