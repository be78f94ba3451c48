/**
 * `medium`: blog platforms read through their public feeds: Medium (medium.com/@user -> /feed/@user,
 * publications, user.medium.com), Substack (/feed), Ghost (/rss/), WordPress (/feed/), Blogger
 * (/feeds/posts/default). A blog on its own domain is read through the feed its pages advertise, else the
 * usual feed paths of those platforms are tried in turn.
 */
import { DomainError } from '../../../core/shared/errors';
import type { SourcePlugin } from '../../../core/sources/source-plugin';
import { feedListing } from '../_shared/feed';
import { maxItems, num, objectSchema } from '../_shared/options';
import { firstFeed } from '../_shared/read-feed';
import { canonicalUrl, hostIs, parseHttpUrl, unsupported } from '../_shared/url';

type Platform = 'medium' | 'substack' | 'ghost' | 'wordpress' | 'blogger' | 'other';

export function platformOf(url: URL): Platform {
  if (hostIs(url, 'medium.com')) return 'medium';
  if (hostIs(url, 'substack.com')) return 'substack';
  if (hostIs(url, 'ghost.io')) return 'ghost';
  if (hostIs(url, 'wordpress.com')) return 'wordpress';
  if (hostIs(url, 'blogspot.com') || /\.blogspot\.[a-z.]+$/i.test(url.hostname) || hostIs(url, 'blogger.com')) return 'blogger';
  return 'other';
}

const mediumRoot = (url: URL) => url.hostname.toLowerCase() === 'medium.com' || url.hostname.toLowerCase() === 'www.medium.com';

/** The blog's canonical URL: a Medium profile or publication, else the blog's home on known platforms. */
function normalize(input: string): string {
  const url = parseHttpUrl(input);
  const platform = platformOf(url);
  if (platform === 'medium' && mediumRoot(url)) {
    const [first] = url.pathname.split('/').filter(Boolean);
    if (!first || ['feed', 'tag', 'topics', 'search', 'me', 'm', 'p', 'plans', 'membership'].includes(first.toLowerCase())) {
      throw unsupported('Give a Medium profile (medium.com/@name) or publication URL', { url: input });
    }
    return canonicalUrl(new URL(`/${first}`, url));
  }
  if (platform !== 'other') return canonicalUrl(new URL('/', url));
  return canonicalUrl(url);
}

/** Where the feed is, most likely first. */
export function feedCandidates(canonical: string): string[] {
  const url = new URL(canonical);
  const at = (path: string) => new URL(path, url).href;
  switch (platformOf(url)) {
    case 'medium':
      return mediumRoot(url) ? [at(`/feed${url.pathname}`)] : [at('/feed')];
    case 'substack':
      return [at('/feed')];
    case 'ghost':
      return [at('/rss/')];
    case 'wordpress':
      return [at('/feed/')];
    case 'blogger':
      return [at('/feeds/posts/default')];
    default:
      return [...new Set([canonical, at('/feed'), at('/rss'), at('/feeds/posts/default')])];
  }
}

const plugin: SourcePlugin = {
  kind: 'source',
  type: 'medium',
  description: 'A blog on Medium, Substack, Ghost, WordPress or Blogger (also on its own domain), read through its feed',
  optionsSchema: objectSchema({ maxItems: maxItems(50, 500) }),
  capabilities: ['probe', 'detect', 'preview', 'schedule'],
  urls: {
    normalizes: [
      ['https://medium.com/@alice/why-typed-contracts-matter-abc123', 'https://medium.com/@alice'],
      ['https://alice.substack.com/p/hello?utm_source=x', 'https://alice.substack.com/'],
    ],
    rejects: ['https://medium.com/tag/ai'],
  },
  recognizes: (url) => platformOf(url) !== 'other',
  normalize,
  async probe(source, ctx) {
    await firstFeed(ctx, feedCandidates(source.url), 1);
  },
  async listItems(source, ctx) {
    const feed = await firstFeed(ctx, feedCandidates(source.url), num(source.options, 'maxItems', 50));
    return feedListing(feed);
  },
  async fetchItem(item, source, ctx) {
    const feed = await firstFeed(ctx, feedCandidates(source.url), num(source.options, 'maxItems', 50));
    const found = feed.items.find((i) => i.key === item.key)?.item;
    if (!found) throw new DomainError('NOT_FOUND', 'The post is no longer in the feed', { key: item.key });
    return found;
  },
};

export default plugin;
