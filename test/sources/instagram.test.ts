/**
 * The `instagram` source (issue 13): URL detection and normalisation (the handle that dedup uses), and
 * reading a profile from a local fake Instagram serving recorded shapes through the real SSRF-guarded
 * fetcher: captions and bio as items, post URLs resolved to their profile, private / unknown / throttled
 * profiles as the errors provisioning maps to its build codes, and the Graph API when a token is set.
 */
import { CheerioHtmlReader } from '../../adapters/documents/html.reader';
import { SsrfGuardedFetcher } from '../../adapters/outbound/ssrf-guarded.fetcher';
import type { SourceContext } from '../../core/sources/source-plugin';
import { createSourceRegistry } from '../../plugins/sources';
import plugin from '../../plugins/sources/instagram';
import {
  bakerProfile,
  type FakeProfile,
  instagramGraphUpstream,
  instagramUpstream,
} from '../../plugins/sources/instagram/test-fixtures/profile';
import { FakeHttpServer } from '../fakes/fake-http-server';

describe('instagram URLs', () => {
  const registry = createSourceRegistry();
  const normalize = (u: string) => plugin.normalize(u);

  it('normalises every profile form to one lower-case handle URL', () => {
    const canonical = 'https://www.instagram.com/fixture.bakes';
    for (const form of [
      'https://www.instagram.com/fixture.bakes',
      'https://instagram.com/Fixture.Bakes/',
      'http://m.instagram.com/fixture.bakes?hl=en&igshid=MzRlODBiNWFlZA==',
      'www.instagram.com/fixture.bakes/reels/',
      'https://www.instagram.com/fixture.bakes/tagged',
      'https://www.instagram.com/fixture.bakes/p/C7aBcDeFgHi/',
      'https://www.instagram.com/fixture.bakes/reel/C7aBcDeFgHi/?utm_source=ig_web_copy_link',
      'https://www.instagram.com/stories/fixture.bakes/3391234567890/',
      'https://instagr.am/fixture.bakes',
    ])
      expect({ form, url: normalize(form) }).toEqual({ form, url: canonical });
  });

  it('keeps posts and reels without a handle as a post URL (its profile is read from the post page)', () => {
    expect(normalize('https://www.instagram.com/p/C7aBcDeFgHi/?img_index=2')).toBe('https://www.instagram.com/p/C7aBcDeFgHi');
    expect(normalize('https://www.instagram.com/reel/C7aBcDeFgHi/')).toBe('https://www.instagram.com/p/C7aBcDeFgHi');
    expect(normalize('https://www.instagram.com/reels/C7aBcDeFgHi')).toBe('https://www.instagram.com/p/C7aBcDeFgHi');
  });

  it('refuses Instagram pages that are not a profile or a post with unsupported_url', () => {
    for (const url of [
      'https://www.instagram.com/',
      'https://www.instagram.com/explore/tags/bread/',
      'https://www.instagram.com/accounts/login/?next=/fixturebakes/',
      'https://www.instagram.com/direct/inbox/',
      'https://www.instagram.com/p/',
      'https://www.instagram.com/p/x!/',
      'https://www.instagram.com/not-a-handle/',
      'https://www.instagram.com/fixturebakes/followers/',
      'https://example.com/fixturebakes',
    ])
      expect(() => normalize(url)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_URL' }));
  });

  it('is the detected type of Instagram hosts only', () => {
    expect(registry.detect('https://m.instagram.com/fixturebakes/')?.type).toBe('instagram');
    expect(registry.detect('https://www.instagram.com/p/C7aBcDeFgHi/')?.type).toBe('instagram');
    expect(registry.detect('https://notinstagram.com/fixturebakes')?.type).not.toBe('instagram');
  });
});

describe('reading a profile from a local fake Instagram', () => {
  const baker = bakerProfile('fixturebakes', 10);
  const hidden: FakeProfile = { ...bakerProfile('hiddenbakes', 5, '1784140572'), isPrivate: true };
  const busy: FakeProfile = { ...bakerProfile('busybakes', 5, '1784140573'), throttled: true };
  const token = 'IGQVJ-fixture-token';
  let site: FakeHttpServer;
  let graph: FakeHttpServer;
  let siteBase: string;
  let graphBase: string;

  beforeAll(async () => {
    site = new FakeHttpServer((req) => {
      const url = new URL(req.path, 'http://fake');
      const r = instagramUpstream([baker, hidden, busy], url.pathname, url.searchParams);
      return r && { status: r.status ?? 200, headers: { 'content-type': r.type }, body: r.body };
    });
    graph = new FakeHttpServer((req) => {
      const url = new URL(req.path, 'http://fake');
      const r = instagramGraphUpstream(baker, token, url.pathname, url.searchParams);
      return { status: r.status ?? 200, headers: { 'content-type': r.type }, body: r.body };
    });
    siteBase = await site.start();
    graphBase = await graph.start();
  });
  afterAll(async () => {
    await site.close();
    await graph.close();
  });
  beforeEach(() => {
    site.requests.length = 0;
    graph.requests.length = 0;
  });

  const context = (secrets: Record<string, string> = {}): SourceContext => ({
    fetcher: new SsrfGuardedFetcher({ allow: [new URL(siteBase).host, new URL(graphBase).host] }),
    html: new CheerioHtmlReader(),
    // The plugin's secrets as the registry hands them out (only the keys it declares are readable).
    secrets: createSourceRegistry({
      secrets: (name) => ({ INSTAGRAM_BASE_URL: siteBase, INSTAGRAM_GRAPH_API_URL: graphBase, ...secrets })[name],
    }).secrets('instagram'),
    requestTimeoutMs: 5000,
    maxResponseBytes: 5 * 1024 * 1024,
    log: () => undefined,
  });
  const list = (url: string, maxItems: number, secrets?: Record<string, string>) =>
    plugin.listItems({ url: plugin.normalize(url), options: { maxItems } }, context(secrets));

  it('lists the most recent captions and the bio; the profile name is the listing title', async () => {
    const listing = await list('https://www.instagram.com/FixtureBakes/', 8);
    expect(listing).toMatchObject({ title: 'Fixture Bakes', author: '@fixturebakes' });
    expect(listing.items).toHaveLength(8);
    const posts = listing.items.slice(0, 7);
    expect(posts.map((i) => i.key)).toEqual(baker.posts.slice(0, 7).map((p) => p.shortcode));
    expect(posts[0].item).toMatchObject({
      url: `https://www.instagram.com/p/${baker.posts[0].shortcode}`,
      title: 'Baking sourdough starter today 🍞',
      text: expect.stringContaining('hydrate the dough to 75%'),
      publishedAt: '2024-05-28T12:00:00.000Z',
    });
    // A reel without a caption keeps a title but has no text to learn from.
    expect(posts[3].item).toMatchObject({ title: 'Reel by @fixturebakes', text: '' });
    expect(listing.items[7].item).toMatchObject({ key: 'profile', text: expect.stringContaining('Sourdough classes every Saturday') });
    expect(site.requests.map((r) => r.path)).toEqual(['/api/v1/users/web_profile_info/?username=fixturebakes']);
    expect(site.requests[0].headers['x-ig-app-id']).toBeTruthy();
  });

  it('resolves a post URL to its profile through the post page', async () => {
    const listing = await list(`https://www.instagram.com/p/${baker.posts[2].shortcode}/`, 4);
    expect(listing.author).toBe('@fixturebakes');
    expect(listing.items.map((i) => i.key)).toContain(baker.posts[0].shortcode);
    await expect(list('https://www.instagram.com/p/Cunknown0001/', 4)).rejects.toMatchObject({ code: 'UNSUPPORTED_URL' });
  });

  it('reports private and unknown profiles as not found, throttling as rate limited, outages as upstream failures', async () => {
    await expect(list('https://www.instagram.com/hiddenbakes', 8)).rejects.toMatchObject({
      code: 'NOT_FOUND',
      message: expect.stringMatching(/private/),
    });
    await expect(list('https://www.instagram.com/nobodybakes', 8)).rejects.toMatchObject({ code: 'NOT_FOUND' });
    await expect(list('https://www.instagram.com/busybakes', 8)).rejects.toMatchObject({ code: 'RATE_LIMITED' });
    site.replyOnce({ status: 503, body: 'Service Unavailable' });
    await expect(list('https://www.instagram.com/fixturebakes', 8)).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
  });

  it('reads the Graph API for the profile the token belongs to, and public data for any other', async () => {
    const listing = await list('https://www.instagram.com/fixturebakes', 5, { INSTAGRAM_ACCESS_TOKEN: token });
    expect(listing.items.map((i) => i.key)).toEqual([...baker.posts.slice(0, 4).map((p) => p.shortcode), 'profile']);
    expect(listing.items[0].item).toMatchObject({
      text: expect.stringContaining('sourdough starter'),
      publishedAt: '2024-05-28T12:00:00.000Z',
    });
    // A reel without a caption carries its video file for a build to transcribe; captioned posts do not.
    expect(listing.items[3].item).toMatchObject({
      text: '',
      mediaUrl: `https://scontent.cdninstagram.com/o1/v/t16/f2/m86/${baker.posts[3].shortcode}.mp4`,
    });
    expect(listing.items[0].item!.mediaUrl).toBeUndefined();
    const media = graph.requests.find((r) => r.path.startsWith(`/${baker.id}/media`))!;
    expect(new URL(media.path, 'http://x').searchParams.get('fields')).toBe('caption,media_type,media_url,permalink,timestamp');
    expect(site.requests).toHaveLength(0);

    await expect(list('https://www.instagram.com/hiddenbakes', 5, { INSTAGRAM_ACCESS_TOKEN: token })).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(site.requests).toHaveLength(1);
  });

  it('does not leak the token when the Graph API refuses it', async () => {
    const error = await list('https://www.instagram.com/fixturebakes', 5, { INSTAGRAM_ACCESS_TOKEN: 'wrong-token-value' }).catch((e) => e);
    expect(error).toMatchObject({ code: 'UPSTREAM_FAILED' });
    expect(JSON.stringify({ message: error.message, details: error.details })).not.toContain('wrong-token-value');
  });
});
