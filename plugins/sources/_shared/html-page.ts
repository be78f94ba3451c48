/**
 * One HTML page read for a source: the main content as text (through the context's HtmlReader port, the
 * same extractor as uploaded HTML files), plus what the page says about itself (OpenGraph and meta tags,
 * JSON-LD, feed links) and its links (from the whole page, navigation included, for crawling).
 */
import { type CheerioAPI, load } from 'cheerio';

import { normalizeWhitespace } from '../../../core/knowledge/chunker';
import type { HtmlReader } from '../../../core/ports/html-reader';
import { resolveLink } from './url';

export interface HtmlPage {
  url: string;
  title: string;
  text: string;
  excerpt?: string;
  author?: string;
  publishedAt?: string;
  siteName?: string;
  /** OpenGraph, twitter: and name= meta tags, lower-case keys (`og:title`, `description`...). */
  meta: Record<string, string>;
  /** Parsed JSON-LD blocks (flattened @graph). */
  jsonLd: Record<string, unknown>[];
  /** Canonical absolute http(s) links, in page order, without duplicates. */
  links: { url: string; text: string }[];
  /** RSS/Atom feeds the page advertises. */
  feeds: string[];
}

const clean = (s: string | undefined) => (s ?? '').replace(/\s+/g, ' ').trim();

function metaTags($: CheerioAPI): Record<string, string> {
  const meta: Record<string, string> = {};
  $('meta').each((_, el) => {
    const key = clean(el.attribs.property ?? el.attribs.name ?? el.attribs.itemprop).toLowerCase();
    const value = clean(el.attribs.content);
    if (key && value && !(key in meta)) meta[key] = value;
  });
  return meta;
}

function jsonLdBlocks($: CheerioAPI): Record<string, unknown>[] {
  const out: Record<string, unknown>[] = [];
  $('script[type="application/ld+json"]').each((_, el) => {
    try {
      const value: unknown = JSON.parse($(el).text());
      const list = Array.isArray(value) ? value : [value];
      for (const v of list) {
        if (!v || typeof v !== 'object') continue;
        const graph = (v as { '@graph'?: unknown })['@graph'];
        if (Array.isArray(graph)) out.push(...graph.filter((g): g is Record<string, unknown> => !!g && typeof g === 'object'));
        else out.push(v as Record<string, unknown>);
      }
    } catch {
      // malformed JSON-LD is common; ignore it
    }
  });
  return out;
}

const ldString = (v: unknown): string | undefined => {
  if (typeof v === 'string') return clean(v) || undefined;
  if (Array.isArray(v)) return ldString(v[0]);
  if (v && typeof v === 'object' && 'name' in v) return ldString((v as { name: unknown }).name);
  return undefined;
};

function isoDate(value: string | undefined): string | undefined {
  if (!value) return undefined;
  const t = Date.parse(value);
  return Number.isNaN(t) ? undefined : new Date(t).toISOString();
}

export async function readHtmlPage(reader: HtmlReader, html: string, pageUrl: string): Promise<HtmlPage> {
  const $ = load(html);
  const meta = metaTags($);
  const jsonLd = jsonLdBlocks($);
  const article = jsonLd.find((b) => /Article|Posting|Blog/i.test(String(b['@type'] ?? ''))) ?? jsonLd[0];
  const seen = new Set<string>();
  const links: HtmlPage['links'] = [];
  $('a[href]').each((_, el) => {
    const url = resolveLink(el.attribs.href, pageUrl);
    if (url && !seen.has(url)) {
      seen.add(url);
      links.push({ url, text: clean($(el).text()) });
    }
  });
  const feeds = $('link[rel~="alternate"]')
    .toArray()
    .filter((el) => /(rss|atom)\+xml/i.test(el.attribs.type ?? ''))
    .map((el) => resolveLink(el.attribs.href, pageUrl))
    .filter((u): u is string => !!u);
  const extracted = await reader.readPage(html);
  const text = normalizeWhitespace(extracted.text);
  const title = clean(meta['og:title']) || clean(extracted.title) || clean($('h1').first().text()) || pageUrl;
  return {
    url: pageUrl,
    title,
    text,
    excerpt: meta['og:description'] || meta.description || meta['twitter:description'] || undefined,
    author: meta.author || meta['article:author'] || ldString(article?.author) || undefined,
    publishedAt: isoDate(meta['article:published_time'] ?? ldString(article?.datePublished)),
    siteName: meta['og:site_name'] || undefined,
    meta,
    jsonLd,
    links,
    feeds: [...new Set(feeds)],
  };
}

export { isoDate };
