/**
 * Breadth-first reading of HTML pages of one site. The start page must be readable (its error is the
 * source's error); later pages that fail are skipped and logged.
 */
import type { SourceContext, SourceItemContent } from '../../../core/sources/source-plugin';
import { getOk, HTML_ACCEPT, isHtml } from './fetch';
import { type HtmlPage, readHtmlPage } from './html-page';
import { looksLikePage, sameSite, unsupported } from './url';

export interface CrawlOptions {
  maxPages: number;
  /** 0 = the start page only. */
  depth: number;
  /** Which same-site links of a page at `depth` to follow (default: all). */
  follow?: (link: { url: URL; text: string }, depth: number) => boolean;
}

/** Fetches one HTML page; non-HTML answers are unreadable as pages. */
export async function fetchHtmlPage(ctx: SourceContext, url: string): Promise<HtmlPage> {
  const fetched = await getOk(ctx, url, HTML_ACCEPT);
  if (!isHtml(fetched.contentType, fetched.text)) {
    throw unsupported(`The URL is not an HTML page (${fetched.contentType || 'unknown type'}); upload the file as a document instead`, {
      url,
    });
  }
  return readHtmlPage(ctx.html, fetched.text, fetched.url);
}

export async function crawl(ctx: SourceContext, start: string, options: CrawlOptions): Promise<HtmlPage[]> {
  const startUrl = new URL(start);
  const seen = new Set<string>([start]);
  const pages: HtmlPage[] = [];
  let frontier = [start];
  for (let depth = 0; frontier.length > 0 && pages.length < options.maxPages; depth++) {
    const next: string[] = [];
    for (const url of frontier) {
      if (pages.length >= options.maxPages) break;
      let page: HtmlPage;
      try {
        page = await fetchHtmlPage(ctx, url);
      } catch (error) {
        if (pages.length === 0 && url === start) throw error;
        ctx.log('warn', `source crawl: skipped ${url}: ${(error as Error).message}`);
        continue;
      }
      pages.push(page);
      seen.add(page.url);
      if (depth >= options.depth) continue;
      for (const link of page.links) {
        const target = new URL(link.url);
        if (seen.has(link.url) || !sameSite(target, startUrl) || !looksLikePage(target)) continue;
        if (options.follow && !options.follow({ url: target, text: link.text }, depth)) continue;
        seen.add(link.url);
        next.push(link.url);
      }
    }
    frontier = next;
  }
  return pages;
}

export const pageItem = (page: HtmlPage, key = page.url): SourceItemContent => ({
  key,
  url: page.url,
  title: page.title,
  text: page.text,
  mimeType: 'text/html',
  ...(page.publishedAt ? { publishedAt: page.publishedAt } : {}),
  ...(page.author ? { author: page.author } : {}),
  ...(page.excerpt ? { excerpt: page.excerpt } : {}),
});

/** Paths of brand pages a store or company site usually has. */
export const BRAND_PAGE =
  /(^|[/_-])(about|about-us|our-story|story|company|team|faq|faqs|help|support|contact|contact-us|shipping|delivery|returns?|refunds?|exchange|warranty|privacy|terms|policies|policy|pricing|sizing|size-guide|care|mission|sustainability)([/_.-]|$)/i;

export const isBrandLink = (link: { url: URL; text: string }) =>
  BRAND_PAGE.test(link.url.pathname) ||
  /^(about|faq|contact|shipping|returns|refund|our story|help|support|pricing|terms|privacy)/i.test(link.text);
