/**
 * `twitter`: X (Twitter) posts and profiles. A post is read through X's public oEmbed endpoint
 * (publish.twitter.com, no account needed). Profiles are served only to signed-in users; the profile page
 * is tried for OpenGraph metadata and otherwise the source fails with a clear unsupported_url that says to
 * add post URLs instead. Nothing is invented.
 */
import { load } from 'cheerio';

import type { SourceContext, SourceItemContent, SourcePlugin, SourceTarget } from '../../../core/sources/source-plugin';
import { get, isHtml, statusError } from '../_shared/fetch';
import { isoDate, readHtmlPage } from '../_shared/html-page';
import { objectSchema } from '../_shared/options';
import { hostIs, parseHttpUrl, unsupported } from '../_shared/url';

export const OEMBED_ENDPOINT = 'https://publish.twitter.com/oembed';
const RESERVED = new Set([
  'home',
  'explore',
  'search',
  'i',
  'settings',
  'intent',
  'share',
  'hashtag',
  'messages',
  'notifications',
  'login',
  'signup',
  'tos',
  'privacy',
  'compose',
]);

const isX = (url: URL) => hostIs(url, 'twitter.com') || hostIs(url, 'x.com');

function normalize(input: string): string {
  const url = parseHttpUrl(input);
  if (!isX(url)) throw unsupported('Not an X (Twitter) URL', { url: input });
  const [user, kind, id] = url.pathname.split('/').filter(Boolean);
  if (!user || RESERVED.has(user.toLowerCase()) || !/^[A-Za-z0-9_]{1,15}$/.test(user)) {
    throw unsupported('Give an X (Twitter) profile (x.com/name) or post (x.com/name/status/123) URL', { url: input });
  }
  if (kind === 'status' && id && /^\d+$/.test(id)) return `https://x.com/${user}/status/${id}`;
  return `https://x.com/${user}`;
}

async function readPost(source: SourceTarget, ctx: SourceContext): Promise<SourceItemContent> {
  const twitterUrl = source.url.replace('https://x.com/', 'https://twitter.com/');
  const endpoint = `${OEMBED_ENDPOINT}?url=${encodeURIComponent(twitterUrl)}&omit_script=true&dnt=true`;
  const fetched = await get(ctx, endpoint, 'application/json');
  if (fetched.status === 404 || fetched.status === 403)
    throw unsupported('The post does not exist or is not public', { url: source.url, status: fetched.status });
  if (fetched.status < 200 || fetched.status > 299) throw statusError(fetched, 'X (Twitter)');
  let data: { html?: string; author_name?: string; author_url?: string };
  try {
    data = JSON.parse(fetched.text);
  } catch {
    throw unsupported('X (Twitter) did not answer with the post', { url: source.url });
  }
  const $ = load(data.html ?? '');
  const text =
    ctx.html.fragmentText(
      $('blockquote p')
        .toArray()
        .map((p) => $.html(p))
        .join('\n'),
    ) || ctx.html.fragmentText(data.html ?? '');
  if (!text) throw unsupported('The post has no public text', { url: source.url });
  const date = isoDate($('blockquote > a').last().text());
  const author = data.author_name?.trim();
  return {
    key: source.url,
    url: source.url,
    title: author ? `Post by ${author}` : 'Post on X',
    text,
    mimeType: 'text/html',
    ...(author ? { author } : {}),
    ...(date ? { publishedAt: date } : {}),
    excerpt: text.slice(0, 280),
  };
}

async function readProfile(source: SourceTarget, ctx: SourceContext): Promise<SourceItemContent> {
  const fetched = await get(ctx, source.url);
  if (fetched.status >= 200 && fetched.status <= 299 && isHtml(fetched.contentType, fetched.text)) {
    const page = await readHtmlPage(ctx.html, fetched.text, source.url);
    const description = page.meta['og:description'] ?? page.meta.description;
    if (description && page.meta['og:title']) {
      return {
        key: source.url,
        url: source.url,
        title: page.meta['og:title'],
        text: description,
        mimeType: 'text/html',
        excerpt: description,
      };
    }
  } else if (fetched.status === 404) {
    throw unsupported('The X (Twitter) account does not exist', { url: source.url });
  }
  throw unsupported(
    'X (Twitter) shows profiles only to signed-in users, so this profile cannot be read; add individual post URLs (x.com/name/status/...) instead',
    { url: source.url, status: fetched.status },
  );
}

const read = (source: SourceTarget, ctx: SourceContext) =>
  /\/status\/\d+$/.test(source.url) ? readPost(source, ctx) : readProfile(source, ctx);

const plugin: SourcePlugin = {
  kind: 'source',
  type: 'twitter',
  description: 'An X (Twitter) post (read through the public oEmbed endpoint) or profile (only when X serves its metadata)',
  optionsSchema: objectSchema({}),
  capabilities: ['probe', 'detect', 'preview', 'schedule'],
  urls: {
    normalizes: [
      ['https://twitter.com/jack/status/20?s=1', 'https://x.com/jack/status/20'],
      ['https://x.com/jack/', 'https://x.com/jack'],
    ],
    rejects: ['https://x.com/home'],
  },
  recognizes: isX,
  normalize,
  async probe(source, ctx) {
    await read(source, ctx);
  },
  async listItems(source, ctx) {
    const item = await read(source, ctx);
    return {
      title: item.title,
      ...(item.author ? { author: item.author } : {}),
      items: [{ key: item.key, url: item.url, title: item.title, item }],
    };
  },
  fetchItem: (_item, source, ctx) => read(source, ctx),
};

export default plugin;
