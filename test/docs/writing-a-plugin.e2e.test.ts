/**
 * The worked example of docs/writing-a-plugin.md, built and run as the guide says: the `notion` source plugin
 * (docs/examples/notion) gets the source-plugin conformance suite for free, then ships as an npm package
 * (compiled here into a package under a temporary node_modules), named in PLUGINS, with its secret in the
 * configuration; a user adds a Notion database through the gateway and finds its pages by search.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import ts from 'typescript';

import { NOTION_DATABASE_ID, notionApi } from '../../docs/examples/notion/test-fixtures/fake-notion';
import sample from '../../docs/examples/notion/test-fixtures/sample';
import { createPluginRegistries } from '../../plugins';
import { createSourceRegistry } from '../../plugins/sources';
import { sourcePluginConformance } from '../conformance/source-plugin.conformance';
import type { SourceSample } from '../conformance/source-sample';
import { FakeHttpServer } from '../fakes/fake-http-server';
import { createKnowledgeHarness, type KnowledgeHarness } from '../knowledge/knowledge-harness';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

const EXAMPLES = resolve(__dirname, '../../docs/examples');
const PACKAGE = '@example/agent-platform-notion-source';
const TOKEN = 'secret_e2e-integration-token-9876543210';

describe('the guide, step 1: the plugin folder gets the conformance suite for free', () => {
  let harness: KnowledgeHarness;
  beforeAll(async () => {
    harness = await createKnowledgeHarness();
  }, BOOT_TIMEOUT_MS);
  afterAll(() => harness?.close());

  const secrets = (sample as SourceSample).secrets ?? {};
  sourcePluginConformance('notion', () => ({
    registry: createSourceRegistry({ dirs: [EXAMPLES], secrets: (name) => secrets[name] }),
    sample,
    folder: join(EXAMPLES, 'notion'),
    knowledge: () => harness,
  }));
});

/** Compiles the example into a package as `npm install` would lay it out (plain JavaScript, types erased). */
function buildPackage(root: string): void {
  const dir = join(root, 'node_modules', ...PACKAGE.split('/'));
  mkdirSync(join(dir, 'dist'), { recursive: true });
  writeFileSync(join(dir, 'package.json'), readFileSync(join(EXAMPLES, 'notion', 'package.json')));
  const source = readFileSync(join(EXAMPLES, 'notion', 'index.ts'), 'utf8');
  const { outputText } = ts.transpileModule(source, {
    compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022 },
  });
  expect(outputText).not.toMatch(/require\(/); // the package needs nothing from the platform at run time
  writeFileSync(join(dir, 'dist', 'index.js'), outputText);
}

describe('the guide, step 2: installed from npm, configured, used through the gateway', () => {
  const notion = new FakeHttpServer((r) => {
    const reply = notionApi({ method: r.method, path: r.path.split('?')[0], headers: r.headers }, TOKEN);
    return reply && { status: reply.status, headers: { 'content-type': reply.type ?? 'application/json' }, body: reply.body };
  });
  let root: string;
  let p: TestPlatform;
  let owner: TestUser;
  let kbId: string;

  beforeAll(async () => {
    root = mkdtempSync(join(tmpdir(), 'plugin-guide-'));
    buildPackage(root);
    const base = await notion.start();
    p = await startTestPlatform({
      PLUGINS: PACKAGE,
      PLUGIN_ROOT: root,
      NOTION_API_TOKEN: TOKEN,
      NOTION_API_URL: `${base}/v1`,
      OUTBOUND_ALLOW: new URL(base).host,
    });
    owner = await registerUser(p.http, { label: 'notion-owner' });
    const kb = await p.http.post('/api/knowledge/kb', { name: 'Handbook' }, { token: owner.accessToken });
    kbId = kb.body.knowledgeBase.id;
  }, BOOT_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await notion.close();
    rmSync(root, { recursive: true, force: true });
  });

  it('lists the type and its options in the OpenAPI document, and validates requests with them', async () => {
    const doc = (await p.http.get('/api/openapi.json')).body;
    const body = doc.paths['/api/knowledge/kb/{id}/sources/url'].post.requestBody.content['application/json'].schema;
    expect(body.properties.sourceType.enum).toContain('notion');
    const branch = body.allOf.find((b: any) => b.if.properties?.sourceType?.const === 'notion');
    expect(branch.then.properties.maxItems).toMatchObject({ maximum: 100, default: 50 });
    const tooMany = await p.http.post(
      `/api/knowledge/kb/${kbId}/sources/url`,
      { url: `https://www.notion.so/acme/Handbook-${NOTION_DATABASE_ID}`, sourceType: 'notion', maxItems: 500 },
      { token: owner.accessToken },
    );
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error).toBe('Validation Error');
  });

  it('adds a Notion database, syncs its pages with the configured token, and search finds them', async () => {
    const added = await p.http.post(
      `/api/knowledge/kb/${kbId}/sources/url`,
      { url: `https://www.notion.so/acme/Handbook-${NOTION_DATABASE_ID}?v=abc`, sourceType: 'notion', maxItems: 10 },
      { token: owner.accessToken },
    );
    expect(added.status).toBe(201);
    expect(added.body.source).toMatchObject({
      url: `https://www.notion.so/${NOTION_DATABASE_ID}`,
      sourceType: 'notion',
      options: { maxItems: 10 },
    });
    expect(JSON.stringify(added.body)).not.toContain(TOKEN);
    expect(notion.requests.every((r) => r.headers.authorization === `Bearer ${TOKEN}`)).toBe(true);

    let hits: any[] = [];
    for (let i = 0; i < 200 && hits.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 100));
      const search = await p.http.post(
        '/api/knowledge/search',
        { knowledgeBaseIds: [kbId], query: 'expense reports due' },
        { token: owner.accessToken },
      );
      hits = search.body.results ?? [];
    }
    expect(hits[0].content).toContain('Expense reports are due by the fifth of each month.');
    const listed = await p.http.get(`/api/knowledge/kb/${kbId}/sources`, { token: owner.accessToken });
    expect(listed.body.sources[0]).toMatchObject({ syncHealth: 'healthy', lastSyncError: null, itemCount: 2 });
  });

  it('refuses the type, naming the key, while its secret is not configured', () => {
    const registries = createPluginRegistries({ packages: [PACKAGE], root, secrets: () => undefined });
    expect(registries.catalogue().sources.find((d) => d.type === 'notion')).toMatchObject({
      available: false,
      secrets: ['NOTION_API_TOKEN', 'NOTION_API_URL'],
    });
    expect(() => registries.sources.usable('notion')).toThrow(/NOTION_API_TOKEN not set/);
  });
});
