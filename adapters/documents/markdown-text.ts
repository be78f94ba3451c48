/**
 * Markdown to readable text: keeps words, headings, list items, table cells and code, drops the syntax
 * noise (link URLs, image syntax, emphasis markers, reference definitions, front matter, HTML tags).
 */

export interface MarkdownImage {
  src: string;
  alt?: string;
}

export interface MarkdownText {
  text: string;
  title?: string;
  images: MarkdownImage[];
}

const FRONT_MATTER = /^---[ \t]*\r?\n([\s\S]*?)\r?\n(?:---|\.\.\.)[ \t]*(?:\r?\n|$)/;
const FENCE = /^\s{0,3}(`{3,}|~{3,})/;

export function markdownToText(source: string): MarkdownText {
  const images: MarkdownImage[] = [];
  let title: string | undefined;
  let body = source.replace(/\r\n?/g, '\n');

  const frontMatter = FRONT_MATTER.exec(body);
  if (frontMatter) {
    title = /^title:\s*["']?(.+?)["']?\s*$/m.exec(frontMatter[1])?.[1];
    body = body.slice(frontMatter[0].length);
  }
  body = body.replace(/<!--[\s\S]*?-->/g, '');

  const out: string[] = [];
  let fence: string | undefined;
  const lines = body.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    const fenceMatch = FENCE.exec(line);
    if (fence !== undefined) {
      if (fenceMatch && fenceMatch[1][0] === fence[0] && fenceMatch[1].length >= fence.length) fence = undefined;
      else out.push(line);
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1];
      continue;
    }
    // Setext heading underline: the previous line was the heading.
    if (/^\s{0,3}(=+|-+)\s*$/.test(line) && i > 0 && lines[i - 1].trim() && out.length > 0) {
      if (!title && line.trim().startsWith('=')) title = out[out.length - 1].trim();
      continue;
    }
    if (/^\s{0,3}([-*_])(\s*\1){2,}\s*$/.test(line)) continue; // thematic break
    if (/^\s{0,3}\[[^\]]+\]:\s*\S+/.test(line)) continue; // link reference definition
    if (/^\s*\|?\s*:?-{3,}:?\s*(\|\s*:?-{3,}:?\s*)*\|?\s*$/.test(line)) continue; // table delimiter row

    let text = line;
    const heading = /^\s{0,3}(#{1,6})\s+(.*?)\s*#*\s*$/.exec(text);
    if (heading) {
      text = heading[2];
      if (!title && heading[1] === '#') title = inline(text, []);
    }
    text = text
      .replace(/^\s{0,3}(>\s?)+/, '') // blockquote markers
      .replace(/^(\s*)[*+](\s+)/, '$1-$2'); // bullets as "-"
    if (/^\s*\|.*\|\s*$/.test(text)) {
      text = text
        .trim()
        .replace(/^\||\|$/g, '')
        .split(/(?<!\\)\|/)
        .map((c) => c.trim())
        .join(' | ');
    }
    out.push(inline(text, images));
  }
  return {
    text: out
      .join('\n')
      .replace(/\n{3,}/g, '\n\n')
      .trim(),
    ...(title ? { title: inline(title, []) } : {}),
    images,
  };
}

/** Inline syntax: images, links, code spans, emphasis, HTML tags, escapes. */
function inline(text: string, images: MarkdownImage[]): string {
  return text
    .replace(/!\[([^\]]*)\]\(\s*<?([^)\s>]*)>?(?:\s+["'(][^)]*["')])?\s*\)/g, (_, alt: string, src: string) => {
      images.push(alt.trim() ? { src, alt: alt.trim() } : { src });
      return alt;
    })
    .replace(/!\[([^\]]*)\]\[[^\]]*\]/g, '$1')
    .replace(/\[([^\]]+)\]\(\s*<?[^)\s>]*>?(?:\s+["'(][^)]*["')])?\s*\)/g, '$1')
    .replace(/\[([^\]]+)\]\[[^\]]*\]/g, '$1')
    .replace(/\[\^[^\]]+\]/g, '') // footnote references
    .replace(/<(https?:\/\/[^>\s]+)>/g, '$1') // autolinks keep the URL: it is the visible text
    .replace(/<\/?[a-zA-Z][^>]*>/g, '')
    .replace(/(`+)(.+?)\1/g, '$2')
    .replace(/(\*\*|__)(?=\S)(.+?)(?<=\S)\1/g, '$2')
    .replace(/(^|[^\w*])\*(?=\S)(.+?)(?<=\S)\*(?!\w)/g, '$1$2')
    .replace(/(^|[^\w])_(?=\S)(.+?)(?<=\S)_(?!\w)/g, '$1$2')
    .replace(/~~(.+?)~~/g, '$1')
    .replace(/\\([\\`*_{}[\]()#+\-.!|>~])/g, '$1');
}
