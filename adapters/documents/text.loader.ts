import { decodeUtf8, type ExtractedContent, type FormatLoadContext, imageMimeType } from './format-loader';
import { markdownToText } from './markdown-text';

/** Plain text: UTF-8 without its byte-order mark, as written. */
export async function loadPlainText(context: FormatLoadContext): Promise<ExtractedContent> {
  return { text: decodeUtf8(context.bytes) };
}

/** Markdown: readable text without link URLs and syntax; the first `#` heading (or front matter) is the title. */
export async function loadMarkdown(context: FormatLoadContext): Promise<ExtractedContent> {
  const { text, title, images } = markdownToText(decodeUtf8(context.bytes));
  return {
    text,
    ...(title ? { title } : {}),
    images: images.map((image) => ({
      ref: image.src,
      mimeType: imageMimeType(image.src),
      ...(image.alt ? { description: image.alt } : {}),
    })),
  };
}
