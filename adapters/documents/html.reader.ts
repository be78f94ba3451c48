import { load } from 'cheerio';

import { normalizeWhitespace } from '../../core/knowledge/chunker';
import type { HtmlReader, HtmlText } from '../../core/ports/html-reader';
import { loadHtml } from './html.loader';
import { htmlToText } from './html-text';

/** The HtmlReader port over the HTML document loader (cheerio). */
export class CheerioHtmlReader implements HtmlReader {
  readonly id = 'cheerio';

  async readPage(html: string): Promise<HtmlText> {
    const extracted = await loadHtml({ bytes: Buffer.from(html, 'utf8'), filename: 'page.html', format: 'html', mimeType: 'text/html' });
    return { text: extracted.text, ...(extracted.title ? { title: extracted.title } : {}) };
  }

  fragmentText(html: string): string {
    if (!html.trim()) return '';
    if (!/[<&]/.test(html)) return normalizeWhitespace(html);
    const $ = load(html);
    return normalizeWhitespace(htmlToText($.root().children().toArray()).text);
  }
}
