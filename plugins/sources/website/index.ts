/**
 * `website`: a brand or company site: the homepage plus the brand pages it links to (about, FAQ, contact,
 * shipping, returns...), same site only. Nothing is guessed: only pages the homepage links to are read.
 */
import { DomainError } from '../../../core/shared/errors';
import type { SourcePlugin } from '../../../core/sources/source-plugin';
import { crawl, fetchHtmlPage, isBrandLink, pageItem } from '../_shared/crawl';
import { maxPages, num, objectSchema } from '../_shared/options';
import { canonicalUrl, parseHttpUrl } from '../_shared/url';

const plugin: SourcePlugin = {
  kind: 'source',
  type: 'website',
  description: 'A website: the homepage and the brand pages it links to (about, FAQ, contact, shipping, returns...)',
  detectPriority: -50,
  optionsSchema: objectSchema({ maxPages: maxPages(10, 50) }),
  // A bare homepage reads best as a website; deeper URLs are single pages (`url`).
  capabilities: ['probe', 'detect', 'preview', 'schedule'],
  urls: { normalizes: [['https://Example.com/about?utm_source=mail', 'https://example.com/']], rejects: ['ftp://example.com/'] },
  recognizes: (url) => (url.protocol === 'http:' || url.protocol === 'https:') && (url.pathname === '/' || url.pathname === ''),
  normalize: (url) => canonicalUrl(new URL('/', parseHttpUrl(url))),
  async probe(source, ctx) {
    await fetchHtmlPage(ctx, source.url);
  },
  async listItems(source, ctx) {
    const pages = await crawl(ctx, source.url, {
      depth: 1,
      maxPages: num(source.options, 'maxPages', 10),
      follow: (link) => isBrandLink(link),
    });
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
