/**
 * DOCX through mammoth's HTML conversion (so headings, lists and tables keep their shape), rendered with
 * the shared HTML-to-text writer. Images are listed with their alt text; their bytes are not read.
 * The title comes from the package properties (docProps/core.xml), else the first heading.
 */
import { load } from 'cheerio';
import mammoth from 'mammoth';

import type { LoadedImage } from '../../core/ports/document-loader';
import { type ExtractedContent, type FormatLoadContext, parseOrFail } from './format-loader';
import { htmlToText } from './html-text';
import { listZipEntries, readZipEntry } from './zip-archive';

const STYLE_MAP = ["p[style-name='Title'] => h1:fresh", "p[style-name='Subtitle'] => h2:fresh"];

export async function loadDocx(context: FormatLoadContext): Promise<ExtractedContent> {
  const imageTypes = new Map<string, string>();
  const convertImage = mammoth.images.imgElement(async (image) => {
    const ref = `image-${imageTypes.size + 1}`;
    imageTypes.set(ref, image.contentType);
    return { src: ref };
  });
  const result = await parseOrFail(context, 'a Word (.docx) document', () =>
    mammoth.convertToHtml({ buffer: context.bytes }, { styleMap: STYLE_MAP, convertImage }),
  );
  const $ = load(result.value);
  const { text, images } = htmlToText($('body').toArray());
  const title = coreTitle(context.bytes) ?? ($('h1').first().text().replace(/\s+/g, ' ').trim() || undefined);
  return {
    text,
    ...(title ? { title } : {}),
    images: images.map((image): LoadedImage => ({
      ref: image.src,
      mimeType: imageTypes.get(image.src) ?? 'application/octet-stream',
      ...(image.alt ? { description: image.alt } : {}),
    })),
    metadata: { conversionWarnings: result.messages.length },
  };
}

/** dc:title from docProps/core.xml, if the package has one. */
function coreTitle(bytes: Buffer): string | undefined {
  const entry = listZipEntries(bytes)?.find((e) => e.name === 'docProps/core.xml');
  const xml = entry && readZipEntry(bytes, entry)?.toString('utf8');
  const raw = xml && /<dc:title>([^<]*)<\/dc:title>/.exec(xml)?.[1];
  return raw ? decodeXmlEntities(raw).replace(/\s+/g, ' ').trim() || undefined : undefined;
}

function decodeXmlEntities(value: string): string {
  const named: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
  return value.replace(/&(#x[0-9a-f]+|#\d+|amp|lt|gt|quot|apos);/gi, (match, entity: string) => {
    if (entity[0] !== '#') return named[entity.toLowerCase()] ?? match;
    const code = entity[1].toLowerCase() === 'x' ? Number.parseInt(entity.slice(2), 16) : Number.parseInt(entity.slice(1), 10);
    return Number.isFinite(code) && code <= 0x10ffff ? String.fromCodePoint(code) : match;
  });
}
