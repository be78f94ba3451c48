/**
 * HTML pages: drops page chrome (scripts, navigation, page header and footer, sidebars, forms, cookie
 * and consent banners), keeps the main content (`main`, a dominant `article`, else the densest block of
 * paragraphs) and renders it with headings and paragraphs on separate lines.
 */
import { type Cheerio, type CheerioAPI, load } from 'cheerio';
import type { Element } from 'domhandler';

import type { LoadedImage } from '../../core/ports/document-loader';
import { decodeUtf8, type ExtractedContent, type FormatLoadContext, imageMimeType } from './format-loader';
import { type HtmlImage, htmlToText } from './html-text';

const CHROME = [
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'iframe',
  'nav',
  'aside',
  'form',
  'dialog',
  'menu',
  '[role=navigation]',
  '[role=banner]',
  '[role=contentinfo]',
  '[role=complementary]',
  '[role=search]',
  '[role=dialog]',
  '[role=alertdialog]',
  '[aria-hidden=true]',
  '[hidden]',
].join(', ');
/** id or class tokens of cookie notices, consent walls, promo banners and similar boilerplate. */
const BOILERPLATE_TOKEN = /cookie|consent|gdpr|banner|popup|newsletter|advert|breadcrumb|skip-?link|social-?share/i;
const PROTECTED = new Set(['html', 'body', 'main', 'article']);
/** Paragraph-like elements whose text length scores their ancestors in the densest-block search. */
const PARAGRAPHS = 'p, pre, blockquote, li, td, dd';

export async function loadHtml(context: FormatLoadContext): Promise<ExtractedContent> {
  const $ = load(decodeUtf8(context.bytes));
  const title = pageTitle($);
  const language = $('html').attr('lang')?.trim();
  removeChrome($);
  const { root, strategy } = contentRoot($);
  const { text, images } = htmlToText(root.toArray());
  return {
    text,
    ...(title ? { title } : {}),
    images: images.map(toLoadedImage),
    metadata: { contentRoot: strategy, ...(language ? { language } : {}) },
  };
}

function pageTitle($: CheerioAPI): string | undefined {
  const candidates = [
    $('head > title').first().text(),
    $('title').first().text(),
    $('meta[property="og:title"]').attr('content'),
    $('h1').first().text(),
  ];
  return candidates.map((c) => c?.replace(/\s+/g, ' ').trim()).find((c) => !!c);
}

function removeChrome($: CheerioAPI): void {
  $(CHROME).remove();
  // The page's own header and footer; headers and footers inside the content stay (they hold titles, bylines).
  $('header, footer')
    .filter((_, el) => $(el).parents('main, article, [role=main]').length === 0)
    .remove();
  $('[id], [class]')
    .filter((_, el) => {
      if (PROTECTED.has(el.name.toLowerCase()) || $(el).find('main, article').length > 0) return false;
      const tokens = `${el.attribs.id ?? ''} ${el.attribs.class ?? ''}`.split(/\s+/);
      return tokens.some((t) => BOILERPLATE_TOKEN.test(t));
    })
    .remove();
}

const textLength = ($: CheerioAPI, el: Element): number => $(el).text().replace(/\s+/g, ' ').trim().length;

function contentRoot($: CheerioAPI): { root: Cheerio<Element>; strategy: string } {
  const body = $('body').first();
  const fallback = body.length ? body : ($.root().children() as Cheerio<Element>);

  const mains = $('main, [role=main]').toArray();
  if (mains.length > 0) return { root: $(largest($, mains)), strategy: 'main' };

  const articles = $('article').toArray();
  if (articles.length > 0) {
    const best = largest($, articles);
    const total = articles.reduce((sum, a) => sum + textLength($, a), 0);
    // A listing of several teasers is not one article: keep them all.
    if (articles.length === 1 || textLength($, best) >= 0.6 * total) return { root: $(best), strategy: 'article' };
  }

  const densest = densestBlock($);
  const bodyLength = fallback.text().replace(/\s+/g, ' ').trim().length;
  if (densest && textLength($, densest) >= 0.25 * bodyLength) return { root: $(densest), strategy: 'densest' };
  return { root: fallback, strategy: 'body' };
}

function largest($: CheerioAPI, elements: Element[]): Element {
  return elements.reduce((best, el) => (textLength($, el) > textLength($, best) ? el : best));
}

/** Readability-style scoring: each paragraph adds its length to its parent and half to its grandparent. */
function densestBlock($: CheerioAPI): Element | undefined {
  const scores = new Map<Element, number>();
  $(PARAGRAPHS).each((_, p) => {
    const length = textLength($, p);
    if (length < 25) return;
    const parent = $(p).parent().get(0);
    const grandparent = $(p).parent().parent().get(0);
    if (parent) scores.set(parent, (scores.get(parent) ?? 0) + length);
    if (grandparent) scores.set(grandparent, (scores.get(grandparent) ?? 0) + length / 2);
  });
  let best: Element | undefined;
  let bestScore = 0;
  for (const [el, score] of scores) {
    if (score > bestScore && el.name !== 'html') {
      best = el;
      bestScore = score;
    }
  }
  return best;
}

function toLoadedImage(image: HtmlImage, index: number): LoadedImage {
  const isData = image.src.startsWith('data:');
  return {
    ref: isData ? `inline-image-${index + 1}` : image.src,
    mimeType: imageMimeType(image.src),
    ...(image.alt ? { description: image.alt } : {}),
  };
}
