import type { SourceContext } from '../../../core/sources/source-plugin';
import { looksLikeFeed, type ParsedFeed, parseFeed } from './feed';
import { FEED_ACCEPT, getOk, isHtml } from './fetch';
import { readHtmlPage } from './html-page';
import { unsupported } from './url';

/**
 * Reads a feed from `url`. When the URL serves an HTML page instead, follows the first RSS/Atom feed
 * the page advertises (`<link rel="alternate">`). Anything else is UNSUPPORTED_URL.
 */
export async function readFeed(ctx: SourceContext, url: string, maxItems: number): Promise<ParsedFeed & { feedUrl: string }> {
  const fetched = await getOk(ctx, url, FEED_ACCEPT, 'The feed');
  if (looksLikeFeed(fetched.text)) return { ...parseFeed(fetched.text, fetched.url, maxItems, ctx.html), feedUrl: fetched.url };
  if (isHtml(fetched.contentType, fetched.text)) {
    const page = await readHtmlPage(ctx.html, fetched.text, fetched.url);
    const [advertised] = page.feeds;
    if (advertised && advertised !== url) {
      const feed = await getOk(ctx, advertised, FEED_ACCEPT, 'The feed');
      if (looksLikeFeed(feed.text)) return { ...parseFeed(feed.text, feed.url, maxItems, ctx.html), feedUrl: feed.url };
    }
    throw unsupported('The page does not advertise an RSS or Atom feed', { url });
  }
  throw unsupported(`The URL does not serve an RSS or Atom feed (${fetched.contentType || 'unknown type'})`, { url });
}

/**
 * The first candidate URL that serves a feed (for blogs on custom domains: /feed, /rss...). Errors of
 * the last candidate are reported when none works.
 */
export async function firstFeed(ctx: SourceContext, candidates: string[], maxItems: number): Promise<ParsedFeed & { feedUrl: string }> {
  let last: unknown = unsupported('No feed found', { candidates });
  for (const candidate of candidates) {
    try {
      return await readFeed(ctx, candidate, maxItems);
    } catch (error) {
      last = error;
      // refused addresses and network failures will not improve with another path
      const code = (error as { code?: string }).code;
      if (code !== 'UNSUPPORTED_URL' || /non-public|not allowed|scheme|malformed/i.test((error as Error).message)) throw error;
    }
  }
  throw last;
}
