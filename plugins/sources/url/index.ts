/** `url`: one web page, or (crawlDepth > 0) the pages of the same site reachable within crawlDepth links. */
import { DomainError } from '../../../core/shared/errors';
import type { SourcePlugin } from '../../../core/sources/source-plugin';
import { crawl, fetchHtmlPage, pageItem } from '../_shared/crawl';
import { crawlDepth, maxPages, num, objectSchema } from '../_shared/options';
import { canonicalUrl, parseHttpUrl } from '../_shared/url';

const plugin: SourcePlugin = {
  kind: 'source',
  type: 'url',
  description: 'A web page; with crawlDepth above 0, same-site pages linked from it (up to maxPages)',
  detectPriority: -100,
  optionsSchema: objectSchema({ crawlDepth: crawlDepth(0), maxPages: maxPages(20) }),
  capabilities: ['probe', 'detect', 'preview', 'schedule'],
  urls: {
    normalizes: [['https://Example.com/Pricing/?utm_source=mail#plans', 'https://example.com/Pricing']],
    rejects: ['ftp://example.com/file', 'https://user:secret@example.com/'],
  },
  recognizes: (url) => url.protocol === 'http:' || url.protocol === 'https:',
  normalize: (url) => canonicalUrl(parseHttpUrl(url)),
  async probe(source, ctx) {
    await fetchHtmlPage(ctx, source.url);
  },
  async listItems(source, ctx) {
    const depth = num(source.options, 'crawlDepth', 0);
    const pages = await crawl(ctx, source.url, { depth, maxPages: depth === 0 ? 1 : num(source.options, 'maxPages', 20) });
    const items = pages.filter((p) => p.text).map((p) => ({ key: p.url, url: p.url, title: p.title, item: pageItem(p) }));
    return { title: pages[0]?.siteName ?? pages[0]?.title, items };
  },
  async fetchItem(item, _source, ctx) {
    const page = await fetchHtmlPage(ctx, item.url);
    if (!page.text) throw new DomainError('UNSUPPORTED_URL', 'The page has no readable text', { url: item.url });
    return pageItem(page, item.key);
  },
};

export default plugin;
