import type { SourcePlugin, SourceTarget } from '../../core/sources/source-plugin';
import { createSourceRegistry } from '../../plugins/sources';
import { productText } from '../../plugins/sources/shopify';
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

describe('linkedin, twitter and shopify plugins against local upstreams', () => {
  let site: FixtureSite;
  let ctx: ReturnType<typeof testContext>;
  beforeAll(async () => {
    site = await startFixtureSite({ shopifyProducts: 300 });
    ctx = testContext(fixtureFetcher(site.port, REWRITTEN_HOSTS));
  });
  afterAll(() => site.close());
  beforeEach(() => {
    site.state.hits.length = 0;
    site.state.shopifyThrottled = false;
  });

  describe('linkedin', () => {
    const linkedin = registry.get('linkedin');

    it('recognises and normalises profile, company, post and article URLs', () => {
      expect(linkedin.recognizes(new URL('https://de.linkedin.com/in/jane'))).toBe(true);
      expect(linkedin.normalize('https://de.linkedin.com/in/jane-doe/recent-activity/?trk=x')).toBe('https://www.linkedin.com/in/jane-doe');
      expect(linkedin.normalize('https://www.linkedin.com/company/fixture-corp/about/')).toBe(
        'https://www.linkedin.com/company/fixture-corp',
      );
      expect(linkedin.normalize('https://www.linkedin.com/feed/update/urn:li:activity:712345/')).toBe(
        'https://www.linkedin.com/feed/update/urn:li:activity:712345',
      );
      expect(() => linkedin.normalize('https://www.linkedin.com/jobs/view/1')).toThrow(
        expect.objectContaining({ code: 'UNSUPPORTED_URL' }),
      );
      expect(() => linkedin.normalize('https://example.com/in/jane')).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_URL' }));
    });

    it('reads what a public page serves (OpenGraph description), nothing more', async () => {
      const listing = await linkedin.listItems(target(linkedin, 'https://www.linkedin.com/in/jane-doe'), ctx);
      expect(listing.items).toHaveLength(1);
      expect(listing.items[0].item).toMatchObject({
        title: 'Jane Doe - Fixture Corp',
        text: 'Head of data at Fixture Corp. Writes about retrieval systems.',
      });
    });

    it('fails with unsupported_url when LinkedIn sends the sign-in wall', async () => {
      const error = await failure(linkedin.listItems(target(linkedin, 'https://www.linkedin.com/company/fixture-corp'), ctx));
      expect(error).toMatchObject({ code: 'UNSUPPORTED_URL', message: expect.stringContaining('signed-in members') });
    });
  });

  describe('twitter', () => {
    const twitter = registry.get('twitter');

    it('recognises and normalises X and Twitter URLs', () => {
      expect(twitter.recognizes(new URL('https://mobile.twitter.com/jack'))).toBe(true);
      expect(twitter.normalize('https://twitter.com/jackfix/status/123?s=20')).toBe('https://x.com/jackfix/status/123');
      expect(twitter.normalize('https://www.x.com/jackfix/with_replies')).toBe('https://x.com/jackfix');
      expect(() => twitter.normalize('https://x.com/home')).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_URL' }));
      expect(() => twitter.normalize('https://x.com/')).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_URL' }));
    });

    it('reads a post through the public oEmbed endpoint', async () => {
      const listing = await twitter.listItems(target(twitter, 'https://x.com/jackfix/status/123'), ctx);
      expect(site.state.hits[0]).toMatch(/^publish\.twitter\.com \/oembed\?url=https%3A%2F%2Ftwitter\.com%2Fjackfix%2Fstatus%2F123/);
      expect(listing.items[0].item).toMatchObject({
        key: 'https://x.com/jackfix/status/123',
        title: 'Post by Jack Fixture',
        author: 'Jack Fixture',
        text: 'Shipping the new retrieval engine today pic.twitter.com/x',
        publishedAt: '2024-05-08T00:00:00.000Z',
      });
    });

    it('fails clearly for unknown posts and for profiles X hides from anonymous readers', async () => {
      expect(await failure(twitter.listItems(target(twitter, 'https://x.com/jackfix/status/999'), ctx))).toMatchObject({
        code: 'UNSUPPORTED_URL',
        message: expect.stringContaining('not public'),
      });
      expect(await failure(twitter.listItems(target(twitter, 'https://x.com/jackfix'), ctx))).toMatchObject({
        code: 'UNSUPPORTED_URL',
        message: expect.stringContaining('signed-in users'),
      });
    });
  });

  describe('shopify', () => {
    const shopify = registry.get('shopify');

    it('recognises myshopify stores and normalises to the store root', () => {
      expect(shopify.recognizes(new URL('https://fixture.myshopify.com/products/x'))).toBe(true);
      expect(shopify.recognizes(new URL('https://example.com/products/x'))).toBe(false);
      expect(shopify.normalize('https://Fixture.myshopify.com/collections/all?page=2')).toBe('https://fixture.myshopify.com');
      expect(shopify.normalize(`${site.base}/products/linen-shirt`)).toBe(site.base);
    });

    it('reads every product page by page (250 per page) plus the brand pages', async () => {
      const listing = await shopify.listItems(target(shopify, site.base), ctx);
      const catalogue = site.state.hits.filter((h) => h.includes('/products.json'));
      expect(catalogue).toEqual(['127.0.0.1 /products.json?limit=250&page=1', '127.0.0.1 /products.json?limit=250&page=2']);
      const products = listing.items.filter((i) => i.key.startsWith('product:'));
      expect(products).toHaveLength(300);
      const shirt = products[0].item!;
      expect(shirt).toMatchObject({
        key: 'product:1000',
        url: `${site.base}/products/linen-shirt`,
        title: 'Linen Shirt',
        author: 'Fixture Apparel',
      });
      expect(shirt.text).toContain('Vendor: Fixture Apparel');
      expect(shirt.text).toContain('Type: Shirts');
      expect(shirt.text).toContain('Tags: summer, linen');
      expect(shirt.text).toContain('Price: 49.00 - 52.00');
      expect(shirt.text).toContain('Availability: in stock');
      expect(shirt.text).toContain('- S: 49.00 (was 59.00), available (SKU LS-S)');
      expect(shirt.text).toContain('- M: 52.00, sold out (SKU LS-M)');
      expect(shirt.text).toContain('Breathable linen shirt for summer.');
      const pages = listing.items.filter((i) => i.key.startsWith('page:')).map((i) => i.url);
      expect(pages).toEqual([
        `${site.base}/`,
        `${site.base}/about`,
        `${site.base}/faq`,
        `${site.base}/contact`,
        `${site.base}/shipping-policy`,
      ]);
    });

    it('honours maxItems and includePages', async () => {
      const listing = await shopify.listItems(target(shopify, site.base, { maxItems: 10, includePages: false }), ctx);
      expect(listing.items).toHaveLength(10);
      expect(site.state.hits).toEqual(['127.0.0.1 /products.json?limit=250&page=1']);
    });

    it('turns a 429 from the store into STORE_THROTTLED', async () => {
      site.state.shopifyThrottled = true;
      const expected = { code: 'STORE_THROTTLED', message: 'The store is rate-limiting requests; try again in a few minutes' };
      expect(await failure(shopify.probe!(target(shopify, site.base), ctx))).toMatchObject(expected);
      expect(await failure(shopify.listItems(target(shopify, site.base), ctx))).toMatchObject(expected);
    });

    it('says so when the site is not a Shopify store', async () => {
      const error = await failure(shopify.probe!({ url: `${site.base}/nothing-here`, options: {} }, ctx));
      expect(error).toMatchObject({ code: 'UNSUPPORTED_URL', message: expect.stringContaining('not a Shopify store') });
    });

    it('renders a product without variants options as plain lines', () => {
      expect(
        productText(
          {
            id: 1,
            title: 'Mug',
            vendor: 'V',
            tags: 'a, b',
            variants: [{ title: 'Default Title', price: '5', available: false }],
          },
          ctx.html,
        ),
      ).toBe('Mug\nVendor: V\nTags: a, b\nPrice: 5.00\nAvailability: sold out');
    });
  });
});
