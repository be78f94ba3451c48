/** `rss`: an RSS 2.0, RSS 1.0 or Atom feed (or a page that advertises one); each entry is an item. */
import { DomainError } from '../../../core/shared/errors';
import type { SourcePlugin } from '../../../core/sources/source-plugin';
import { feedListing } from '../_shared/feed';
import { maxItems, num, objectSchema } from '../_shared/options';
import { readFeed } from '../_shared/read-feed';
import { canonicalUrl, parseHttpUrl } from '../_shared/url';

const FEED_PATH = /(^|\/)(feed|rss|atom)(\/|\.xml|\.rss)?$|\.(rss|atom|xml)$|\/feeds\/posts\//i;

const plugin: SourcePlugin = {
  kind: 'source',
  type: 'rss',
  description: 'An RSS or Atom feed; each entry becomes a document (maxItems most recent)',
  optionsSchema: objectSchema({ maxItems: maxItems(50, 500) }),
  capabilities: ['probe', 'detect', 'preview', 'schedule'],
  urls: {
    normalizes: [['https://Example.com/blog/feed.xml#latest', 'https://example.com/blog/feed.xml']],
    rejects: ['mailto:editor@example.com'],
  },
  recognizes: (url) => FEED_PATH.test(url.pathname) || /[?&](feed|format)=(rss|atom)/i.test(url.search),
  normalize: (url) => canonicalUrl(parseHttpUrl(url)),
  async probe(source, ctx) {
    await readFeed(ctx, source.url, 1);
  },
  async listItems(source, ctx) {
    return feedListing(await readFeed(ctx, source.url, num(source.options, 'maxItems', 50)));
  },
  async fetchItem(item, source, ctx) {
    // Items come with their content; this path only runs for a listing without it.
    const feed = await readFeed(ctx, source.url, num(source.options, 'maxItems', 50));
    const found = feed.items.find((i) => i.key === item.key)?.item;
    if (!found) throw new DomainError('NOT_FOUND', 'The entry is no longer in the feed', { key: item.key });
    return found;
  },
};

export default plugin;
