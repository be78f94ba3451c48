/** RSS 2.0, RSS 1.0 (RDF) and Atom feeds read with fast-xml-parser into source items. */
import { XMLParser } from 'fast-xml-parser';

import type { HtmlReader } from '../../../core/ports/html-reader';
import { sha256Hex } from '../../../core/shared/hash';
import type { ListedItem, SourceListing } from '../../../core/sources/source-plugin';
import { isoDate } from './html-page';
import { resolveLink, unsupported } from './url';

const ARRAYS = new Set([
  'rss.channel.item',
  'rdf:RDF.item',
  'feed.entry',
  'feed.entry.link',
  'feed.link',
  'feed.entry.author',
  'feed.entry.category',
  'rss.channel.item.category',
]);

const parser = new XMLParser({
  ignoreAttributes: false,
  attributeNamePrefix: '@_',
  textNodeName: '#text',
  parseTagValue: false,
  parseAttributeValue: false,
  trimValues: true,
  processEntities: true,
  htmlEntities: true,
  isArray: (_name, jpath) => ARRAYS.has(String(jpath)),
});

type Node = Record<string, unknown>;

/** Text of an element that may be a string, a {#text} object or an array of either. */
function str(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string' || typeof value === 'number') return String(value).trim();
  if (Array.isArray(value)) return str(value[0]);
  if (typeof value === 'object') return str((value as Node)['#text']);
  return '';
}

export interface ParsedFeed {
  title?: string;
  link?: string;
  items: ListedItem[];
}

export function looksLikeFeed(xml: string): boolean {
  return /<(rss|feed|rdf:RDF)[\s>]/i.test(xml.slice(0, 4096));
}

/** Parses the feed (entry bodies read as text by `html`); throws UNSUPPORTED_URL when the document is not RSS or Atom. */
export function parseFeed(xml: string, feedUrl: string, maxItems: number, html: HtmlReader): ParsedFeed {
  let doc: Node;
  try {
    doc = parser.parse(xml) as Node;
  } catch (error) {
    throw unsupported(`The feed is not valid XML: ${(error as Error).message}`, { url: feedUrl });
  }
  if (doc.rss && typeof doc.rss === 'object') {
    const channel = ((doc.rss as Node).channel ?? {}) as Node;
    const items = ((channel.item as Node[] | undefined) ?? []).slice(0, maxItems).map((i) => rssItem(i, feedUrl, html));
    return { title: str(channel.title) || undefined, link: str(channel.link) || undefined, items };
  }
  if (doc['rdf:RDF'] && typeof doc['rdf:RDF'] === 'object') {
    const rdf = doc['rdf:RDF'] as Node;
    const channel = (rdf.channel ?? {}) as Node;
    const items = ((rdf.item as Node[] | undefined) ?? []).slice(0, maxItems).map((i) => rssItem(i, feedUrl, html));
    return { title: str(channel.title) || undefined, link: str(channel.link) || undefined, items };
  }
  if (doc.feed && typeof doc.feed === 'object') {
    const feed = doc.feed as Node;
    const items = ((feed.entry as Node[] | undefined) ?? []).slice(0, maxItems).map((e) => atomEntry(e, feedUrl, html));
    return { title: str(feed.title) || undefined, link: atomLink(feed.link as Node[] | undefined, feedUrl) ?? undefined, items };
  }
  throw unsupported('The URL does not serve an RSS or Atom feed', { url: feedUrl });
}

function finish(
  html: HtmlReader,
  fields: {
    key: string;
    url: string;
    title: string;
    html: string;
    summaryHtml: string;
    author: string;
    date: string;
  },
): ListedItem {
  const text = html.fragmentText(fields.html || fields.summaryHtml);
  const excerpt = html.fragmentText(fields.summaryHtml).slice(0, 300) || undefined;
  const title = fields.title || text.slice(0, 80) || fields.url;
  const key = fields.key || fields.url || `item:${sha256Hex(title + text).slice(0, 24)}`;
  return {
    key,
    url: fields.url,
    title,
    item: {
      key,
      url: fields.url,
      title,
      text,
      mimeType: 'text/html',
      ...(isoDate(fields.date) ? { publishedAt: isoDate(fields.date) } : {}),
      ...(fields.author ? { author: fields.author } : {}),
      ...(excerpt ? { excerpt } : {}),
    },
  };
}

function rssItem(item: Node, feedUrl: string, html: HtmlReader): ListedItem {
  const link = resolveLink(str(item.link), feedUrl) ?? '';
  const guid = str(item.guid);
  return finish(html, {
    key: guid || link,
    url: link || (/^https?:\/\//.test(guid) ? guid : feedUrl),
    title: str(item.title),
    html: str(item['content:encoded']),
    summaryHtml: str(item.description),
    author: str(item['dc:creator']) || str(item.author),
    date: str(item.pubDate) || str(item['dc:date']),
  });
}

function atomLink(links: Node[] | undefined, base: string): string | null {
  if (!links?.length) return null;
  const alternate = links.find((l) => !l['@_rel'] || l['@_rel'] === 'alternate') ?? links[0];
  return resolveLink(str(alternate['@_href']), base);
}

function atomEntry(entry: Node, feedUrl: string, html: HtmlReader): ListedItem {
  const link = atomLink(entry.link as Node[] | undefined, feedUrl) ?? '';
  const authors = (entry.author as Node[] | undefined) ?? [];
  return finish(html, {
    key: str(entry.id) || link,
    url: link || feedUrl,
    title: html.fragmentText(str(entry.title)),
    html: str(entry.content),
    summaryHtml: str(entry.summary),
    author: authors
      .map((a) => str(a.name))
      .filter(Boolean)
      .join(', '),
    date: str(entry.published) || str(entry.updated),
  });
}

export const feedListing = (feed: ParsedFeed): SourceListing => ({
  ...(feed.title ? { title: feed.title } : {}),
  items: feed.items.filter((i) => i.item && (i.item.text || i.item.title)),
});
