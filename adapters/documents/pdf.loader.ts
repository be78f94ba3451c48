/**
 * PDF text layer through pdf-parse v1 (pdf.js 1.10). Scanned pages have no text layer and come out
 * empty; the document loader turns that into a "No extractable text" error.
 */
import type PdfParse from 'pdf-parse';

import { DomainError } from '../../core/shared/errors';
import { type ExtractedContent, type FormatLoadContext, parseOrFail } from './format-loader';

interface TextItem {
  str: string;
  /** [scaleX, skewY, skewX, scaleY, x, y] */
  transform: number[];
  width?: number;
}
interface PageProxy {
  getTextContent(options: { normalizeWhitespace: boolean; disableCombineTextItems: boolean }): Promise<{ items: TextItem[] }>;
}

let parser: typeof PdfParse | undefined;

/** The library entry itself: `require('pdf-parse')` runs a debug self-test that reads a missing file. */
function pdfParse(): typeof PdfParse {
  if (!parser) {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    parser = require('pdf-parse/lib/pdf-parse.js') as typeof PdfParse;
  }
  return parser;
}

export async function loadPdf(context: FormatLoadContext): Promise<ExtractedContent> {
  const result = await parseOrFail(context, 'a PDF document', async () => {
    try {
      // pdf.js 1.x misreads Node Buffers (it relies on Uint8Array#slice copying); give it a plain copy.
      return await pdfParse()(new Uint8Array(context.bytes) as unknown as Buffer, { pagerender: renderPage });
    } catch (error) {
      if ((error as { name?: string } | null)?.name === 'PasswordException') {
        throw new DomainError('VALIDATION', `"${context.filename}" is password-protected; remove the password and upload it again`, {
          filename: context.filename,
        });
      }
      throw error;
    }
  });
  const info = (result.info ?? {}) as Record<string, unknown>;
  const title = typeof info.Title === 'string' && info.Title.trim() ? info.Title.trim() : undefined;
  return {
    text: result.text,
    ...(title ? { title } : {}),
    metadata: {
      pages: result.numpages,
      ...(typeof info.Author === 'string' && info.Author ? { author: info.Author } : {}),
      ...(typeof info.Subject === 'string' && info.Subject ? { subject: info.Subject } : {}),
    },
  };
}

/**
 * Like pdf-parse's own renderer (a new line when the baseline changes), but puts a space between items
 * on one line when there is a visible gap, so words drawn separately do not run together.
 */
async function renderPage(page: PageProxy): Promise<string> {
  const { items } = await page.getTextContent({ normalizeWhitespace: false, disableCombineTextItems: false });
  let text = '';
  let previous: TextItem | undefined;
  for (const item of items) {
    if (previous === undefined) text += item.str;
    else if (item.transform[5] !== previous.transform[5]) text += `\n${item.str}`;
    else {
      const gap = item.transform[4] - (previous.transform[4] + (previous.width ?? 0));
      const fontSize = Math.abs(item.transform[0]) || 1;
      const needsSpace = gap > fontSize * 0.15 && !/\s$/.test(text) && !/^\s/.test(item.str);
      text += (needsSpace ? ' ' : '') + item.str;
    }
    previous = item;
  }
  return text;
}
