import { closedPort } from '../../adapters/outbound/test-fixtures';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';
import { type FixtureSite, startFixtureSite } from './fixtures/site';

describe('light scrape, and URL refusals at the HTTP edge', () => {
  let site: FixtureSite;
  let platform: TestPlatform;
  let user: TestUser;
  let kbId: string;
  let refusedPort: number;

  beforeAll(async () => {
    site = await startFixtureSite();
    refusedPort = await closedPort();
    platform = await startTestPlatform({ OUTBOUND_ALLOW: `127.0.0.1:${site.port}` });
    user = await registerUser(platform.http, { label: 'scrape' });
    kbId = (await platform.http.post('/api/knowledge/kb', { name: 'Scrapes' }, { token: user.accessToken })).body.knowledgeBase.id;
  }, 120_000);
  afterAll(async () => {
    await platform?.close();
    await site?.close();
  });

  const scrape = (urls: unknown) => platform.http.post('/api/knowledge/light-scrape', { urls }, { token: user.accessToken });

  describe('POST /api/knowledge/light-scrape', () => {
    it('reads each URL with its source type, reporting errors per URL, in request order', async () => {
      const r = await scrape([
        { url: `${site.base}/about`, sourceType: 'url' },
        { url: `${site.base}/feed.xml`, sourceType: 'rss' },
        { url: `${site.base}/missing`, sourceType: 'url' },
        { url: `http://127.0.0.1:${refusedPort}/`, sourceType: 'url' },
        { url: `${site.base}/about`, sourceType: 'gopher' },
      ]);
      expect(r.status).toBe(200);
      const [page, feed, missing, internal, unknown] = r.body.results;
      expect(page).toMatchObject({ url: `${site.base}/about`, sourceType: 'url', title: 'About Fixture', error: null, author: null });
      expect(page.textContent).toContain('Company history paragraph');
      expect(page.excerpt).toEqual(expect.any(String));
      expect(feed).toMatchObject({ sourceType: 'rss', title: 'Garden Journal', error: null, author: 'Ada Gardener' });
      expect(feed.textContent).toContain('First post about gardening');
      expect(feed.textContent).toContain('Mulch keeps the soil moist & cool.');
      expect(missing).toMatchObject({ title: null, textContent: null, error: expect.stringContaining('404') });
      expect(internal).toMatchObject({ textContent: null, error: 'The URL address is not allowed' });
      expect(unknown).toMatchObject({ textContent: null, error: expect.stringContaining('sourceType must be one of') });
    });

    it('cuts the text to 2000 characters', async () => {
      const r = await scrape([{ url: `${site.base}/long`, sourceType: 'url' }]);
      expect(r.status).toBe(200);
      expect(r.body.results[0].error).toBeNull();
      expect(r.body.results[0].textContent).toHaveLength(2000);
    });

    it('reads blog platforms, shops and posts through their plugins too', async () => {
      const r = await scrape([
        { url: `${site.base}/blog-home`, sourceType: 'medium' },
        { url: site.base, sourceType: 'shopify' },
      ]);
      const [blog, shop] = r.body.results;
      expect(blog).toMatchObject({ title: 'Garden Journal', error: null });
      expect(shop.error).toBeNull();
      expect(shop.textContent).toContain('Vendor: Fixture Apparel');
    });

    it('accepts at most 10 URLs, each with url and sourceType', async () => {
      const eleven = Array.from({ length: 11 }, (_, i) => ({ url: `${site.base}/about?i=${i}`, sourceType: 'url' }));
      const tooMany = await scrape(eleven);
      expect(tooMany.status).toBe(400);
      expect(tooMany.body.error).toBe('Validation Error');
      expect((await scrape(eleven.slice(0, 10))).status).toBe(200);
      expect((await scrape([{ url: `${site.base}/about` }])).status).toBe(400);
      expect((await scrape([{ sourceType: 'url' }])).status).toBe(400);
      expect((await scrape([])).status).toBe(400);
      expect((await platform.http.post('/api/knowledge/light-scrape', { urls: [{ url: 'x', sourceType: 'url' }] })).status).toBe(401);
    });
  });

  describe('adding sources that cannot be read', () => {
    const add = (body: unknown) => platform.http.post(`/api/knowledge/kb/${kbId}/sources/url`, body, { token: user.accessToken });

    it('answers 400 unsupported_url for internal addresses', async () => {
      for (const url of [
        `http://127.0.0.1:${refusedPort}/`,
        'http://169.254.169.254/latest/meta-data/',
        'http://[::1]/',
        'http://10.0.0.8/admin',
      ]) {
        const r = await add({ url });
        expect(r.status).toBe(400);
        expect(r.body).toMatchObject({ error: 'unsupported_url' });
      }
    });

    it('answers 400 unsupported_url for pages that do not exist and URLs no plugin reads', async () => {
      expect((await add({ url: `${site.base}/missing` })).body).toMatchObject({
        error: 'unsupported_url',
        message: expect.stringContaining('404'),
      });
      expect((await add({ url: 'ftp://example.com/x' })).body).toMatchObject({ error: 'unsupported_url' });
      expect((await add({ url: `${site.base}/about`, sourceType: 'rss' })).body).toMatchObject({ error: 'unsupported_url' });
    });

    it('answers 503 store_throttled when the store rate-limits', async () => {
      site.state.shopifyThrottled = true;
      try {
        const r = await add({ url: site.base, sourceType: 'shopify' });
        expect(r.status).toBe(503);
        expect(r.body).toMatchObject({
          error: 'store_throttled',
          message: 'The store is rate-limiting requests; try again in a few minutes',
        });
      } finally {
        site.state.shopifyThrottled = false;
      }
      const list = await platform.http.get(`/api/knowledge/kb/${kbId}/sources`, { token: user.accessToken });
      expect(list.body.count).toBe(0);
    });

    it('the same URL and type added twice stays one source', async () => {
      const first = await add({ url: `${site.base}/about#team` });
      const second = await add({ url: `${site.base}/about`, syncEnabled: true });
      expect(first.status).toBe(201);
      expect(second.status).toBe(201);
      expect(second.body.source).toMatchObject({ id: first.body.source.id, syncEnabled: true });
      expect((await platform.http.get(`/api/knowledge/kb/${kbId}/sources`, { token: user.accessToken })).body.count).toBe(1);
    });
  });

  it('agent setup turns its sources into sources of the new knowledge base', async () => {
    const r = await platform.http.post(
      '/api/bots/setup',
      {
        name: 'From feed',
        sources: [
          { url: `${site.base}/atom.xml`, sourceType: 'rss' },
          { url: 'mailto:x@y', sourceType: 'url' },
        ],
      },
      { token: user.accessToken },
    );
    expect(r.status).toBe(201);
    const setupKb = r.body.knowledgeBase.id;
    const list = await platform.http.get(`/api/knowledge/kb/${setupKb}/sources`, { token: user.accessToken });
    expect(list.body.sources).toEqual([
      expect.objectContaining({ url: `${site.base}/atom.xml`, sourceType: 'rss' }),
      expect.objectContaining({ url: 'mailto:x@y', syncHealth: 'failing', lastSyncError: expect.stringContaining('http') }),
    ]);
  });
});
