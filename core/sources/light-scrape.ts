/**
 * `POST /api/knowledge/light-scrape` (spec 4.7, limits in 8): a quick read of up to 10 URLs without
 * indexing anything. Each URL is read through its source type's plugin (a preview: the first page, or the
 * ~8 newest entries of a feed) within 10 seconds, its text cut to 2000 characters. Failures are reported
 * per URL; the URLs are read concurrently.
 */
import type { Actor } from '../identity/actor';
import { activeOrganization } from '../identity/policy';
import { DomainError, isDomainError } from '../shared/errors';
import { resolveSource } from './manage-sources';
import { sourceContext, type SourcesDeps } from './sources-deps';

export interface LightScrapeRequest {
  url: string;
  sourceType: string;
}

export interface LightScrapeResult {
  url: string;
  sourceType: string;
  title: string | null;
  textContent: string | null;
  author: string | null;
  excerpt: string | null;
  error: string | null;
}

const EXCERPT_CHARS = 280;

function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text[max - 1]) ? max - 1 : max; // never split a surrogate pair
  return text.slice(0, end);
}

function withDeadline<T>(work: Promise<T>, ms: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DomainError('UPSTREAM_FAILED', `Reading the URL took longer than ${ms / 1000} seconds`)), ms);
  });
  return Promise.race([work, deadline]).finally(() => clearTimeout(timer));
}

async function scrapeOne(deps: SourcesDeps, request: LightScrapeRequest): Promise<LightScrapeResult> {
  const limits = deps.settings.lightScrape;
  const base = { url: request.url, sourceType: request.sourceType };
  try {
    const preview = { maxItems: limits.previewItems, maxPages: 1, crawlDepth: 0, includePages: false };
    const { plugin, type, url, options } = resolveSource(deps, { url: request.url, sourceType: request.sourceType, options: {} });
    if (!plugin.capabilities.includes('preview')) throw new DomainError('VALIDATION', `A ${type} source cannot be previewed`);
    const target = { url, options: { ...options, ...Object.fromEntries(Object.entries(preview).filter(([k]) => k in options)) } };
    const ctx = sourceContext(deps, type, limits.timeoutMs);
    const read = async () => {
      const listing = await plugin.listItems(target, ctx);
      const listed = listing.items.slice(0, limits.previewItems);
      if (listed.length === 0) throw new DomainError('UNSUPPORTED_URL', 'Nothing readable was found at this URL');
      const first = listed[0].item ?? (await plugin.fetchItem(listed[0], target, ctx));
      if (listed.length === 1)
        return { title: first.title, text: first.text, author: first.author ?? listing.author, excerpt: first.excerpt };
      const entries = listed.map((l) => l.item).filter((i): i is NonNullable<typeof i> => !!i);
      const text = entries.map((i) => `${i.title}\n${i.text}`).join('\n\n');
      return { title: listing.title ?? first.title, text, author: listing.author ?? first.author, excerpt: first.excerpt };
    };
    const page = await withDeadline(read(), limits.timeoutMs);
    const textContent = cut(page.text.trim(), limits.maxChars);
    return {
      ...base,
      title: page.title || null,
      textContent,
      author: page.author ?? null,
      excerpt: cut((page.excerpt ?? textContent).trim(), EXCERPT_CHARS) || null,
      error: null,
    };
  } catch (error) {
    const message = isDomainError(error) ? error.message : 'The URL could not be read';
    if (!isDomainError(error)) deps.log('warn', `light scrape ${request.url}: unexpected error`, error);
    return { ...base, title: null, textContent: null, author: null, excerpt: null, error: message };
  }
}

export async function lightScrape(deps: SourcesDeps, actor: Actor, urls: LightScrapeRequest[]): Promise<{ results: LightScrapeResult[] }> {
  activeOrganization(actor);
  const max = deps.settings.lightScrape.maxUrls;
  if (urls.length === 0) throw new DomainError('VALIDATION', 'urls must hold at least one URL');
  if (urls.length > max) throw new DomainError('VALIDATION', `urls must hold at most ${max} URLs`);
  return { results: await Promise.all(urls.map((u) => scrapeOne(deps, u))) };
}
