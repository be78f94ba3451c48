/** Word 97-2003 (.doc) through word-extractor: body, text boxes, footnotes and endnotes. */
import WordExtractor from 'word-extractor';

import { type ExtractedContent, type FormatLoadContext, parseOrFail } from './format-loader';

export async function loadDoc(context: FormatLoadContext): Promise<ExtractedContent> {
  const document = await parseOrFail(context, 'a Word 97-2003 (.doc) document', () => new WordExtractor().extract(context.bytes));
  const parts = [
    document.getBody(),
    document.getTextboxes({ includeHeadersAndFooters: false, includeBody: true }),
    document.getFootnotes(),
    document.getEndnotes(),
  ].map((part) => (part ?? '').trim());
  return { text: parts.filter(Boolean).join('\n\n') };
}
