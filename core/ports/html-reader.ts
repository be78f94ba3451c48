/**
 * Reading HTML as text: the same extraction as uploaded HTML files (page chrome dropped, headings and
 * paragraphs on their own lines), offered to plugins so they read pages without reaching into adapters.
 */
export interface HtmlText {
  /** The page title (`<title>`, og:title), when it has one. */
  title?: string;
  text: string;
}

export interface HtmlReader {
  /** The main content of a whole page (navigation, header, footer, banners removed). */
  readPage(html: string): Promise<HtmlText>;
  /** Plain text of a fragment (a feed entry body, a product description), nothing removed. */
  fragmentText(html: string): string;
}
export const HTML_READER = Symbol.for('HtmlReader');
