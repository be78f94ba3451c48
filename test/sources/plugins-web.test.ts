import { closedPort } from '../../adapters/outbound/test-fixtures';
import type { SourcePlugin, SourceTarget } from '../../core/sources/source-plugin';
import { createSourceRegistry } from '../../plugins/sources';
import { feedCandidates } from '../../plugins/sources/medium';
import { fixtureFetcher, testContext } from './fixtures/routing-fetcher';
import { type FixtureSite, REWRITTEN_HOSTS, startFixtureSite } from './fixtures/site';

const registry = createSourceRegistry();
const target = (plugin: SourcePlugin, url: string, options: Record<string, unknown> = {}): SourceTarget => ({
  url: plugin.normalize(url),
  options: registry.validateOptions(plugin.type, options),
});
const failure = (p: Promise<unknown>) =>
  p.then(
    () => undefined,
    (e: unknown) => e as { code: string; message: string },
  );

describe('web source plugins against a local site', () => {
  let site: FixtureSite;
  let ctx: ReturnType<typeof testContext>;
  beforeAll(async () => {
    site = await startFixtureSite();
    ctx = testContext(fixtureFetcher(site.port, REWRITTEN_HOSTS));
  });
  afterAll(() => site.close());

  describe('url', () => {
    const url = registry.get('url');

    it('recognises http(s) URLs and normalises them', () => {
      expect(url.recognizes(new URL('https://example.com/a'))).toBe(true);
      expect(url.normalize('HTTPS://Example.COM/a/b/?utm_source=x&q=1#top')).toBe('https://example.com/a/b?q=1');
      expect(url.normalize('example.com/page')).toBe('https://example.com/page');
      expect(() => url.normalize('ftp://example.com/x')).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_URL' }));
      expect(() => url.normalize('https://user:pw@example.com/')).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_URL' }));
    });

    it('reads a single page (crawlDepth 0): main content, not the page chrome', async () => {
      const listing = await url.listItems(target(url, `${site.base}/about`), ctx);
      expect(listing.items).toHaveLength(1);
      const item = listing.items[0].item!;
      expect(item).toMatchObject({ key: `${site.base}/about`, title: 'About Fixture', mimeType: 'text/html' });
      expect(item.text).toContain('Company history paragraph');
      expect(item.text).not.toContain('Footer boilerplate');
      expect(item.text).not.toContain('About us\nFAQ');
    });

    it('follows same-site page links up to crawlDepth and maxPages', async () => {
      const listing = await url.listItems(target(url, `${site.base}/blog/post-1`, { crawlDepth: 1, maxPages: 50 }), ctx);
      const keys = listing.items.map((i) => i.key);
      expect(keys[0]).toBe(`${site.base}/blog/post-1`);
      expect(keys).toEqual(expect.arrayContaining([`${site.base}/blog/post-2`, `${site.base}/about`]));
      expect(keys).not.toContain(`${site.base}/blog/post-3`); // two links away
      expect(keys.some((k) => k.includes('elsewhere.test') || k.endsWith('.pdf'))).toBe(false);

      const deeper = await url.listItems(target(url, `${site.base}/blog/post-1`, { crawlDepth: 2, maxPages: 50 }), ctx);
      expect(deeper.items.map((i) => i.key)).toContain(`${site.base}/blog/post-3`);

      const capped = await url.listItems(target(url, `${site.base}/blog/post-1`, { crawlDepth: 2, maxPages: 2 }), ctx);
      expect(capped.items).toHaveLength(2);
    });

    it('fetches an item, and fails clearly on missing pages and non-HTML URLs', async () => {
      const item = await url.fetchItem({ key: 'k', url: `${site.base}/faq` }, target(url, `${site.base}/faq`), ctx);
      expect(item.text).toContain('Returns are accepted within 30 days');
      expect(await failure(url.probe!(target(url, `${site.base}/nope`), ctx))).toMatchObject({
        code: 'UNSUPPORTED_URL',
        message: expect.stringContaining('404'),
      });
      expect(await failure(url.probe!(target(url, `${site.base}/brochure.pdf`), ctx))).toMatchObject({
        code: 'UNSUPPORTED_URL',
        message: expect.stringContaining('application/pdf'),
      });
    });

    it('refuses internal addresses that are not on the allow list', async () => {
      const port = await closedPort();
      expect(await failure(url.probe!(target(url, `http://127.0.0.1:${port}/`), ctx))).toMatchObject({
        code: 'UNSUPPORTED_URL',
        message: expect.stringContaining('not allowed'),
      });
      expect(await failure(url.probe!(target(url, 'http://169.254.169.254/latest/meta-data/'), ctx))).toMatchObject({
        code: 'UNSUPPORTED_URL',
      });
    });
  });

  describe('website', () => {
    const website = registry.get('website');

    it('recognises homepages and normalises to the site root', () => {
      expect(website.recognizes(new URL('https://brand.example/'))).toBe(true);
      expect(website.recognizes(new URL('https://brand.example/blog/x'))).toBe(false);
      expect(website.normalize('https://Brand.example/about?x=1#y')).toBe('https://brand.example/');
    });

    it('reads the homepage and the brand pages it links to, nothing else', async () => {
      const listing = await website.listItems(target(website, `${site.base}/faq`), ctx);
      const keys = listing.items.map((i) => i.key);
      expect(keys).toEqual([
        `${site.base}/`,
        `${site.base}/about`,
        `${site.base}/faq`,
        `${site.base}/contact`,
        `${site.base}/shipping-policy`,
      ]);
      expect(listing.items[0].item!.excerpt).toBe('The fixture store homepage');
      expect(listing.items.find((i) => i.key.endsWith('/shipping-policy'))!.item!.text).toContain('two business days');
    });
  });

  describe('rss', () => {
    const rss = registry.get('rss');

    it('recognises feed URLs', () => {
      expect(rss.recognizes(new URL('https://blog.example/feed'))).toBe(true);
      expect(rss.recognizes(new URL('https://blog.example/rss.xml'))).toBe(true);
      expect(rss.recognizes(new URL('https://blog.example/index.atom'))).toBe(true);
      expect(rss.recognizes(new URL('https://blog.example/about'))).toBe(false);
    });

    it('reads RSS 2.0 items with their text, author and date', async () => {
      const listing = await rss.listItems(target(rss, `${site.base}/feed.xml`), ctx);
      expect(listing.title).toBe('Garden Journal');
      expect(listing.items.map((i) => i.key)).toEqual(['post-1', 'post-2', 'post-3']);
      expect(listing.items[0].item).toMatchObject({
        title: 'First post about gardening',
        url: 'http://garden.test/post-1',
        text: 'Tomatoes need full sun and regular watering.',
        author: 'Ada Gardener',
        publishedAt: '2024-05-06T10:00:00.000Z',
      });
      expect(listing.items[2].item!.text).toBe('Mulch keeps the soil moist & cool.');
      const capped = await rss.listItems(target(rss, `${site.base}/feed.xml`, { maxItems: 2 }), ctx);
      expect(capped.items).toHaveLength(2);
    });

    it('reads Atom entries (content, else summary)', async () => {
      const listing = await rss.listItems(target(rss, `${site.base}/atom.xml`), ctx);
      expect(listing.title).toBe('Atom Notes');
      expect(listing.items.map((i) => i.item)).toEqual([
        expect.objectContaining({
          key: 'urn:uuid:entry-1',
          url: 'http://atom.test/bees',
          text: 'Bees make honey from nectar collected across the meadow.',
          author: 'Bea Keeper',
          excerpt: 'Short summary about bees.',
        }),
        expect.objectContaining({
          key: 'urn:uuid:entry-2',
          title: 'Atom entry on hives',
          text: 'Hives need ventilation in summer.',
          publishedAt: '2024-03-02T12:00:00.000Z',
        }),
      ]);
    });

    it('follows the feed an HTML page advertises, and refuses pages without one', async () => {
      const listing = await rss.listItems(target(rss, `${site.base}/blog-home`), ctx);
      expect(listing.items).toHaveLength(3);
      expect(await failure(rss.listItems(target(rss, `${site.base}/about`), ctx))).toMatchObject({
        code: 'UNSUPPORTED_URL',
        message: expect.stringContaining('feed'),
      });
    });
  });

  describe('medium and other blog platforms', () => {
    const medium = registry.get('medium');

    it('recognises Medium, Substack, Ghost, WordPress and Blogger and maps them to their feeds', () => {
      for (const u of [
        'https://medium.com/@alice',
        'https://alice.medium.com/',
        'https://alice.substack.com/',
        'https://team.ghost.io/',
        'https://me.wordpress.com/',
        'https://me.blogspot.com/',
      ]) {
        expect(medium.recognizes(new URL(u))).toBe(true);
      }
      expect(medium.recognizes(new URL('https://example.com/blog'))).toBe(false);
      expect(medium.normalize('https://medium.com/@alice/why-typed-contracts-matter-abc123?source=rss')).toBe('https://medium.com/@alice');
      expect(() => medium.normalize('https://medium.com/')).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_URL' }));
      expect(feedCandidates(medium.normalize('https://medium.com/@alice'))).toEqual(['https://medium.com/feed/@alice']);
      expect(feedCandidates(medium.normalize('https://medium.com/towards-data/some-post'))).toEqual([
        'https://medium.com/feed/towards-data',
      ]);
      expect(feedCandidates(medium.normalize('https://alice.medium.com/post'))).toEqual(['https://alice.medium.com/feed']);
      expect(feedCandidates(medium.normalize('https://alice.substack.com/p/hello'))).toEqual(['https://alice.substack.com/feed']);
      expect(feedCandidates(medium.normalize('https://team.ghost.io/post/'))).toEqual(['https://team.ghost.io/rss/']);
      expect(feedCandidates(medium.normalize('https://me.wordpress.com/2024/01/x'))).toEqual(['https://me.wordpress.com/feed/']);
      expect(feedCandidates(medium.normalize('https://me.blogspot.com/2024/x.html'))).toEqual([
        'https://me.blogspot.com/feeds/posts/default',
      ]);
      expect(feedCandidates('https://blog.example.org/post')).toEqual([
        'https://blog.example.org/post',
        'https://blog.example.org/feed',
        'https://blog.example.org/rss',
        'https://blog.example.org/feeds/posts/default',
      ]);
    });

    it('reads a Medium profile through medium.com/feed/@user', async () => {
      const listing = await medium.listItems(target(medium, 'https://medium.com/@alice'), ctx);
      expect(site.state.hits).toContain('medium.com /feed/@alice');
      expect(listing.items).toEqual([
        expect.objectContaining({
          key: 'https://medium.com/p/abc123',
          item: expect.objectContaining({
            title: 'Why typed contracts matter',
            author: 'Alice',
            text: 'Contracts\n\nA schema shared by server and client prevents drift between them.',
          }),
        }),
      ]);
    });

    it('reads a Substack through /feed and a self-hosted blog through the feed its page advertises', async () => {
      expect((await medium.listItems(target(medium, 'https://alice.substack.com/p/x'), ctx)).items).toHaveLength(1);
      const selfHosted = await medium.listItems(target(medium, `${site.base}/blog-home`), ctx);
      expect(selfHosted.title).toBe('Garden Journal');
    });
  });
});
