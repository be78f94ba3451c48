/**
 * `linkedin`: public LinkedIn profile, company, post and article pages. LinkedIn serves most pages only to
 * signed-in members (HTTP 999, or a redirect to its sign-in wall); then the source fails with a clear
 * unsupported_url. When a page is served, its OpenGraph/meta description, JSON-LD and main text are read.
 * Nothing is invented.
 */
import type { SourceContext, SourceItemContent, SourcePlugin, SourceTarget } from '../../../core/sources/source-plugin';
import { get, HTML_ACCEPT, isHtml, statusError } from '../_shared/fetch';
import { readHtmlPage } from '../_shared/html-page';
import { objectSchema } from '../_shared/options';
import { hostIs, parseHttpUrl, unsupported } from '../_shared/url';

const KINDS = ['in', 'company', 'school', 'showcase', 'posts', 'pulse'];
const SIGN_IN_WALL = /\/(authwall|login|uas\/login|checkpoint|signup)(\/|$|\?)/i;

function normalize(input: string): string {
  const url = parseHttpUrl(input);
  if (!hostIs(url, 'linkedin.com')) throw unsupported('Not a LinkedIn URL', { url: input });
  const parts = url.pathname.split('/').filter(Boolean);
  if (parts[0] === 'feed' && parts[1] === 'update' && /^urn:li:(activity|share|ugcPost):\d+$/i.test(decodeURIComponent(parts[2] ?? ''))) {
    return `https://www.linkedin.com/feed/update/${decodeURIComponent(parts[2])}`;
  }
  if (KINDS.includes(parts[0]) && parts[1])
    return `https://www.linkedin.com/${parts[0]}/${encodeURIComponent(decodeURIComponent(parts[1]))}`;
  throw unsupported('Give a LinkedIn profile (/in/...), company (/company/...), post (/posts/...) or article (/pulse/...) URL', {
    url: input,
  });
}

const ldText = (blocks: Record<string, unknown>[], key: string) =>
  blocks
    .map((b) => b[key])
    .find((v): v is string => typeof v === 'string' && v.trim().length > 0)
    ?.trim();

async function readPublicPage(source: SourceTarget, ctx: SourceContext): Promise<SourceItemContent> {
  const fetched = await get(ctx, source.url, HTML_ACCEPT);
  if (SIGN_IN_WALL.test(new URL(fetched.url).pathname) || fetched.status === 999) {
    throw unsupported('LinkedIn shows this page only to signed-in members, so it cannot be read; paste its text as a document instead', {
      url: source.url,
      status: fetched.status,
    });
  }
  if (fetched.status < 200 || fetched.status > 299) throw statusError(fetched, 'The LinkedIn page');
  if (!isHtml(fetched.contentType, fetched.text)) throw unsupported('LinkedIn did not answer with a page', { url: source.url });
  const page = await readHtmlPage(ctx.html, fetched.text, source.url);
  const body = ldText(page.jsonLd, 'articleBody') ?? ldText(page.jsonLd, 'text');
  const description = page.meta['og:description'] ?? page.meta.description ?? ldText(page.jsonLd, 'description');
  const text = body ?? (page.text.length >= (description?.length ?? 0) && page.text.length >= 200 ? page.text : description);
  if (!text) throw unsupported('The LinkedIn page has no public content', { url: source.url });
  return {
    key: source.url,
    url: source.url,
    title: page.title.replace(/\s*\|\s*LinkedIn\s*$/i, ''),
    text,
    mimeType: 'text/html',
    ...(page.author ? { author: page.author } : {}),
    ...(page.publishedAt ? { publishedAt: page.publishedAt } : {}),
    ...(description ? { excerpt: description } : {}),
  };
}

const plugin: SourcePlugin = {
  kind: 'source',
  type: 'linkedin',
  description: 'A public LinkedIn profile, company page, post or article (only what LinkedIn serves without sign-in)',
  optionsSchema: objectSchema({}),
  capabilities: ['probe', 'detect', 'preview', 'schedule'],
  urls: {
    normalizes: [['https://de.linkedin.com/in/jane-doe/recent-activity/?trk=x', 'https://www.linkedin.com/in/jane-doe']],
    rejects: ['https://www.linkedin.com/jobs/view/1', 'https://example.com/in/jane'],
  },
  recognizes: (url) => hostIs(url, 'linkedin.com'),
  normalize,
  async probe(source, ctx) {
    await readPublicPage(source, ctx);
  },
  async listItems(source, ctx) {
    const item = await readPublicPage(source, ctx);
    return { title: item.title, items: [{ key: item.key, url: item.url, title: item.title, item }] };
  },
  fetchItem: (_item, source, ctx) => readPublicPage(source, ctx),
};

export default plugin;
