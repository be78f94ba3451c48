import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { SourceRegistry } from '../../core/sources/source-registry';
import { createSourceRegistry, discoverSourcePlugins } from '../../plugins/sources';
import { ajvOptionsValidator } from '../../plugins/sources/options-validator';

describe('source plugin discovery and registry', () => {
  const registry = createSourceRegistry();

  it('discovers one plugin per folder of plugins/sources', () => {
    expect(registry.types()).toEqual(['linkedin', 'medium', 'rss', 'shopify', 'twitter', 'url', 'website']);
  });

  it('detects the most specific type of a URL', () => {
    const detect = (u: string) => registry.detect(u)?.type ?? null;
    expect(detect('https://medium.com/@alice')).toBe('medium');
    expect(detect('https://alice.substack.com/p/hello')).toBe('medium');
    expect(detect('https://team.ghost.io/')).toBe('medium');
    expect(detect('https://x.com/jack/status/20')).toBe('twitter');
    expect(detect('https://twitter.com/jack')).toBe('twitter');
    expect(detect('https://www.linkedin.com/in/jane')).toBe('linkedin');
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
    expect(() => registry.validateOptions('url', { crawlDepth: 9 })).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    expect(() => registry.validateOptions('rss', { mediaEmbeddingStrategy: 'magic' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION' }),
    );
  });

  it('refuses unknown types with the list of known ones', () => {
    expect(() => registry.get('gopher')).toThrow(expect.objectContaining({ code: 'VALIDATION', message: expect.stringContaining('rss') }));
  });

  it('refuses a plugin whose options schema is not a valid JSON schema, and duplicates', () => {
    const r = new SourceRegistry(ajvOptionsValidator());
    const plugin = { ...registry.get('url'), type: 'broken', optionsSchema: { type: 'no-such-type' } };
    expect(() => r.register(plugin)).toThrow(/invalid options schema/);
    r.register(registry.get('url'));
    expect(() => r.register(registry.get('url'))).toThrow(/registered twice/);
  });

  describe('adding a type touches only its folder', () => {
    let dir: string;
    beforeAll(() => {
      dir = mkdtempSync(join(tmpdir(), 'source-plugins-'));
      mkdirSync(join(dir, 'gopher'));
      // A self-contained plugin file, as a new folder under plugins/sources would hold.
      writeFileSync(
        join(dir, 'gopher', 'index.ts'),
        `const plugin = {
  type: 'gopher',
  description: 'Gopher holes (fixture)',
  optionsSchema: { type: 'object', properties: { maxItems: { type: 'integer', default: 3 } } },
  recognizes: (url: URL) => url.hostname.endsWith('.gopher.test'),
  normalize: (url: string) => url.toLowerCase(),
  listItems: async (source: { url: string }) => ({ items: [{ key: 'a', url: source.url, item: { key: 'a', url: source.url, title: 'Hole', text: 'Gopher text', mimeType: 'text/plain' } }] }),
  fetchItem: async () => { throw new Error('unused'); },
};
export default plugin;
`,
      );
      mkdirSync(join(dir, '_helpers'));
      writeFileSync(join(dir, '_helpers', 'index.ts'), 'export default { not: "a plugin" };\n');
    });
    afterAll(() => rmSync(dir, { recursive: true, force: true }));

    it('loads a new plugin folder through the same discovery function', async () => {
      expect(discoverSourcePlugins(dir).map((p) => p.type)).toEqual(['gopher']);
      const extended = createSourceRegistry({ dirs: [dir] });
      expect(extended.types()).toContain('gopher');
      expect(extended.detect('http://docs.gopher.test/x')?.type).toBe('gopher');
      expect(extended.validateOptions('gopher', {})).toEqual({ maxItems: 3 });
      const listing = await extended.get('gopher').listItems({ url: 'http://a.gopher.test', options: {} }, undefined as never);
      expect(listing.items[0].item?.text).toBe('Gopher text');
    });

    it('insists that the type equals the folder name', () => {
      mkdirSync(join(dir, 'misnamed'));
      writeFileSync(join(dir, 'misnamed', 'index.ts'), "export default { type: 'other' };\n");
      try {
        expect(() => discoverSourcePlugins(dir)).toThrow(/must equal its folder name/);
      } finally {
        rmSync(join(dir, 'misnamed'), { recursive: true, force: true });
      }
    });
  });
});
