import { existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import type { SourcePlugin } from '../../core/sources/source-plugin';
import { SourceRegistry } from '../../core/sources/source-registry';
import { createPluginRegistries } from '../../plugins';
import { ajvOptionsValidator } from '../../plugins/kit/ajv-options-validator';
import { createSourceRegistry, discoverSourcePlugins } from '../../plugins/sources';

const PLUGIN_DIR = resolve(__dirname, '../../plugins/sources');
/** The folders that hold a source type, read from disk: the list is never written down twice. */
const pluginFolders = () =>
  readdirSync(PLUGIN_DIR, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !/^[_.]/.test(e.name) && existsSync(join(PLUGIN_DIR, e.name, 'index.ts')))
    .map((e) => e.name)
    .sort();

/** A plugin file as a folder or an npm package would hold it (plain JavaScript). */
const gopherSource = (type: string, extra = '') => `
const plugin = {
  kind: 'source',
  type: '${type}',
  description: 'Gopher holes (fixture)',
  optionsSchema: { type: 'object', properties: { maxItems: { type: 'integer', default: 3 } } },
  capabilities: ['detect', 'preview'],
  urls: { normalizes: [['HTTP://Docs.Gopher.Test/X', 'http://docs.gopher.test/x']] },
  recognizes: (url) => url.hostname.endsWith('.gopher.test'),
  normalize: (url) => url.toLowerCase(),
  listItems: async (source) => ({ items: [{ key: 'a', url: source.url, item: { key: 'a', url: source.url, title: 'Hole', text: 'Gopher text', mimeType: 'text/plain' } }] }),
  fetchItem: async () => { throw new Error('unused'); },${extra}
};
`;

const OPTIONAL_SECRETS: Record<string, string[]> = {
  youtube: ['YOUTUBE_API_KEY', 'YOUTUBE_BASE_URL', 'YOUTUBE_DATA_API_URL', 'YOUTUBE_MEDIA_URL'],
  instagram: ['INSTAGRAM_ACCESS_TOKEN', 'INSTAGRAM_BASE_URL', 'INSTAGRAM_GRAPH_API_URL'],
};

describe('source plugin discovery and registry', () => {
  const registry = createSourceRegistry();

  it('discovers one plugin per folder of plugins/sources, and describes each for the contract', () => {
    expect(registry.types()).toEqual(pluginFolders());
    expect(registry.descriptors().map((d) => d.type)).toEqual(pluginFolders());
    for (const d of registry.descriptors()) {
      // Built-in types work without configuration: their secrets, if any, are optional (API keys and base URLs).
      expect(d).toMatchObject({ kind: 'source', available: true });
      expect(d.secrets).toEqual(OPTIONAL_SECRETS[d.type] ?? []);
      expect(d.capabilities.length).toBeGreaterThan(0);
      // spec 4.7's common options are merged into every type's schema
      expect(Object.keys((d.optionsSchema as { properties: object }).properties)).toEqual(
        expect.arrayContaining(['maxItems', 'maxPages', 'crawlDepth', 'mediaEmbeddingStrategy', 'visualEntityExtraction']),
      );
    }
  });

  it('detects the most specific type of a URL', () => {
    const detect = (u: string) => registry.detect(u)?.type ?? null;
    expect(detect('https://medium.com/@alice')).toBe('medium');
    expect(detect('https://alice.substack.com/p/hello')).toBe('medium');
    expect(detect('https://team.ghost.io/')).toBe('medium');
    expect(detect('https://x.com/jack/status/20')).toBe('twitter');
    expect(detect('https://twitter.com/jack')).toBe('twitter');
    expect(detect('https://www.linkedin.com/in/jane')).toBe('linkedin');
    expect(detect('https://www.instagram.com/fixturebakes/')).toBe('instagram');
    expect(detect('https://shop-name.myshopify.com/collections/all')).toBe('shopify');
    expect(detect('https://example.com/blog/feed.xml')).toBe('rss');
    expect(detect('https://example.com/')).toBe('website');
    expect(detect('https://example.com/pricing')).toBe('url');
    expect(detect('ftp://example.com/file')).toBeNull();
    expect(detect('not a url')).toBeNull();
  });

  it('validates options with the plugin schema and applies its defaults', () => {
    expect(registry.validateOptions('url', {})).toMatchObject({ crawlDepth: 0, maxPages: 20 });
    expect(registry.validateOptions('rss', { maxItems: 5, visualEntityExtraction: true })).toMatchObject({
      maxItems: 5,
      visualEntityExtraction: true,
    });
    expect(registry.validateOptions('url', { maxItems: 5 })).toMatchObject({ maxItems: 5 }); // a common option
    expect(() => registry.validateOptions('url', { crawlDepth: 9 })).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    expect(() => registry.validateOptions('rss', { mediaEmbeddingStrategy: 'magic' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION' }),
    );
    expect(() => registry.validateOptions('url', { includePages: true })).toThrow(/includePages|additional/);
  });

  it('refuses unknown types with the list of known ones', () => {
    expect(() => registry.get('gopher')).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('rss') }));
  });

  describe('the closed contract', () => {
    const url = registry.get('url');
    const attempt = (patch: Record<string, unknown>) => () =>
      new SourceRegistry(ajvOptionsValidator()).register({ ...url, type: 'candidate', ...patch }, 'test');

    it('accepts a complete plugin', () => {
      expect(attempt({})).not.toThrow();
    });

    it.each([
      [{ optionsSchema: { type: 'object', properties: { x: { type: 'no-such-type' } } } }, /invalid options schema/],
      [{ optionsSchema: { type: 'array' } }, /object schema/],
      [{ kind: 'channel' }, /kind "channel"/],
      [{ type: 'Not A Type' }, /type must match/],
      [{ description: '' }, /needs a description/],
      [{ capabilities: ['detect', 'teleport'] }, /capabilities teleport/],
      [{ capabilities: ['detect', 'preview'] }, /probe capability exactly when it has probe/],
      [{ urls: undefined }, /urls.normalizes/],
      [{ secrets: [{ name: 'lower', description: 'x' }] }, /secret name "lower"/],
      [
        {
          secrets: [
            { name: 'TOKEN_A', description: 'x' },
            { name: 'TOKEN_A', description: 'y' },
          ],
        },
        /TOKEN_A twice/,
      ],
      [{ listItems: undefined }, /has no listItems/],
      [{ readDisk: () => undefined }, /declares readDisk, which the source contract does not have/],
    ])('refuses %o', (patch, problem) => {
      expect(attempt(patch)).toThrow(problem);
    });

    it('refuses a type registered twice', () => {
      const r = new SourceRegistry(ajvOptionsValidator()).register(url, 'first');
      expect(() => r.register(url, 'second')).toThrow(/registered twice \(also from first\)/);
    });
  });

  describe('secrets', () => {
    const TOKEN = 'tok-0123456789-secret';
    const secretPlugin = (values: Record<string, string>) => {
      const plugin: SourcePlugin = {
        ...registry.get('url'),
        type: 'private',
        capabilities: ['preview'],
        probe: undefined,
        secrets: [{ name: 'PRIVATE_TOKEN', description: 'API token' }],
        listItems: (_source, ctx) => Promise.reject(new Error(`upstream refused token ${ctx.secrets.getRequired('PRIVATE_TOKEN')}`)),
      };
      const { probe: _probe, ...withoutProbe } = plugin;
      return new SourceRegistry(ajvOptionsValidator(), (name) => values[name]).register(withoutProbe, 'test');
    };

    it('hands a plugin only the secrets it declared, and refuses its type while a required one is missing', () => {
      const configured = secretPlugin({ PRIVATE_TOKEN: TOKEN, JWT_SECRET: 'platform-secret' });
      expect(configured.secrets('private').get('PRIVATE_TOKEN')).toBe(TOKEN);
      expect(() => configured.secrets('private').get('JWT_SECRET')).toThrow(/does not declare/);
      expect(configured.descriptors()[0]).toMatchObject({ secrets: ['PRIVATE_TOKEN'], available: true });
      const missing = secretPlugin({});
      expect(missing.descriptors()[0].available).toBe(false);
      expect(() => missing.usable('private')).toThrow(
        expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('PRIVATE_TOKEN not set') }),
      );
    });

    it('takes secret values out of everything a plugin throws', async () => {
      const r = secretPlugin({ PRIVATE_TOKEN: TOKEN });
      const ctx = { secrets: r.secrets('private') } as never;
      const error = (await r
        .get('private')
        .listItems({ url: 'https://example.com', options: {} }, ctx)
        .catch((e: unknown) => e)) as Error;
      expect(error.message).toBe('upstream refused token [redacted]');
      expect(r.redactor('private').text(`a ${TOKEN} b`)).toBe('a [redacted] b');
    });
  });

  describe('adding a type touches only its folder or its package', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'source-plugins-'));
      mkdirSync(join(dir, 'gopher'));
      writeFileSync(join(dir, 'gopher', 'index.js'), `${gopherSource('gopher')}module.exports = { default: plugin };\n`);
      mkdirSync(join(dir, '_helpers'));
      writeFileSync(join(dir, '_helpers', 'index.js'), 'module.exports = { default: { not: "a plugin" } };\n');
      // An npm package, as `npm install` would lay it out under a project's node_modules.
      const pkg = join(dir, 'project', 'node_modules', '@fixture', 'gemini-source');
      mkdirSync(pkg, { recursive: true });
      writeFileSync(join(pkg, 'package.json'), JSON.stringify({ name: '@fixture/gemini-source', version: '1.0.0', main: 'lib/main.js' }));
      mkdirSync(join(pkg, 'lib'));
      writeFileSync(join(pkg, 'lib', 'main.js'), `${gopherSource('gemini')}module.exports = [plugin];\n`);
      // A package holding a channel type: it goes to the channel registry.
      const channel = join(dir, 'project', 'node_modules', 'fixture-pager-channel');
      mkdirSync(channel, { recursive: true });
      writeFileSync(
        join(channel, 'index.js'),
        `module.exports = { kind: 'channel', type: 'pager', description: 'Pager messages (fixture)', optionsSchema: { type: 'object', properties: { number: { type: 'string' } } }, secrets: [{ name: 'PAGER_API_KEY', description: 'key' }], capabilities: ['outbound'], identityChannel: 'pager', receive: () => ({ kind: 'unsupported' }), parse: () => [], send: async () => ({}) };\n`,
      );
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('loads a new plugin folder through the same discovery function', async () => {
      expect(discoverSourcePlugins(dir).map((p) => p.type)).toEqual(['gopher']);
      const extended = createSourceRegistry({ dirs: [dir] });
      expect(extended.types()).toEqual([...pluginFolders(), 'gopher'].sort());
      expect(extended.origin('gopher')).toBe('plugins/sources/gopher');
      expect(extended.detect('http://docs.gopher.test/x')?.type).toBe('gopher');
      expect(extended.validateOptions('gopher', {})).toEqual({ maxItems: 3 });
      const listing = await extended.get('gopher').listItems({ url: 'http://a.gopher.test', options: {} }, undefined as never);
      expect(listing.items[0].item?.text).toBe('Gopher text');
    });

    it('loads plugins from an npm package named in configuration, resolved from its root', () => {
      const registries = createPluginRegistries({ packages: ['@fixture/gemini-source'], root: join(dir, 'project') });
      expect(registries.sources.types()).toContain('gemini');
      expect(registries.sources.origin('gemini')).toBe('npm:@fixture/gemini-source');
      expect(registries.catalogue().sources.map((d) => d.type)).toContain('gemini');
      expect(() => createPluginRegistries({ packages: ['@fixture/absent'], root: join(dir, 'project') })).toThrow(
        /PLUGINS: cannot load the package @fixture\/absent/,
      );
    });

    it('routes each plugin of a package to the registry of its kind', () => {
      const registries = createPluginRegistries({
        packages: ['fixture-pager-channel'],
        root: join(dir, 'project'),
        secrets: () => 'k-123456',
      });
      expect(registries.channels.types()).toContain('pager');
      expect(registries.sources.types()).not.toContain('pager');
      expect(registries.catalogue().channels).toContainEqual(
        expect.objectContaining({ kind: 'channel', type: 'pager', secrets: ['PAGER_API_KEY'], available: true }),
      );
    });

    it('insists that a folder plugin is named like its folder', () => {
      mkdirSync(join(dir, 'misnamed'));
      writeFileSync(join(dir, 'misnamed', 'index.js'), "module.exports = { default: { type: 'other' } };\n");
      try {
        expect(() => discoverSourcePlugins(dir)).toThrow(/must equal its folder name/);
      } finally {
        rmSync(join(dir, 'misnamed'), { recursive: true, force: true });
      }
    });
  });
});
