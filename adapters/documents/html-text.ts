/**
 * Renders a parsed HTML tree as readable plain text: headings, paragraphs and other blocks on their own
 * lines separated by blank lines, list items and table rows on consecutive lines (`- item`, `a | b`),
 * `<pre>` kept verbatim, scripts and form controls dropped. Images are collected, not written.
 */
import type { AnyNode, Element } from 'domhandler';

export interface HtmlImage {
  src: string;
  alt?: string;
}

export interface HtmlText {
  text: string;
  images: HtmlImage[];
}

const BLOCKS = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'tr',
  'ul',
]);
/** Blocks that read as lines of one list rather than separate paragraphs. */
const LINE_BLOCKS = new Set(['li', 'tr', 'dt', 'dd']);
const SKIPPED = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'head',
  'select',
  'option',
  'button',
  'input',
  'textarea',
  'audio',
  'video',
  'map',
]);

/** Containers of line blocks: two of them in a row are separated by a blank line. */
const LINE_GROUPS = new Set(['ul', 'ol', 'dl', 'table']);

interface Block {
  text: string;
  line: boolean;
  /** Starts a new list or table, so it is not joined to the previous line block. */
  groupStart: boolean;
}

class TextWriter {
  readonly blocks: Block[] = [];
  readonly images: HtmlImage[] = [];
  private inline = '';
  /** Open block elements, innermost last: the text being collected belongs to the last one. */
  private readonly open: string[] = [];
  private preDepth = 0;
  private cellDepth = 0;
  private groupStart = false;

  write(node: AnyNode): void {
    const type: string = node.type;
    if (type === 'text') {
      const data = (node as unknown as { data: string }).data;
      this.inline += this.preDepth > 0 ? data : data.replace(/\s+/g, ' ');
      return;
    }
    if (type !== 'tag') return; // comments, directives, <script> and <style> (typed separately)
    const el = node as Element;
    const name = el.name.toLowerCase();
    if (SKIPPED.has(name)) return;
    if (name === 'br') {
      this.inline += this.cellDepth > 0 ? ' ' : '\n';
      return;
    }
    if (name === 'img') {
      const src = el.attribs.src?.trim();
      const alt = el.attribs.alt?.replace(/\s+/g, ' ').trim();
      if (src) this.images.push(alt ? { src, alt } : { src });
      return;
    }
    if (name === 'td' || name === 'th') {
      if (hasPreviousCell(el)) this.inline += ' | ';
      this.cellDepth++;
      this.children(el);
      this.cellDepth--;
      return;
    }
    if (!BLOCKS.has(name) || this.cellDepth > 0) {
      // Inline element, or a block inside a table cell: stays on the current line.
      if (BLOCKS.has(name)) this.inline += ' ';
      this.children(el);
      return;
    }
    this.flush();
    const group = LINE_GROUPS.has(name) && !this.inLineBlock();
    if (group) this.groupStart = true;
    this.open.push(name);
    if (name === 'li') this.inline = listMarker(el);
    if (name === 'pre') this.preDepth++;
    this.children(el);
    this.flush(name === 'pre');
    if (name === 'pre') this.preDepth--;
    this.open.pop();
    if (group) this.groupStart = true;
  }

  private inLineBlock(): boolean {
    return this.open.some((name) => LINE_BLOCKS.has(name));
  }

  finish(): HtmlText {
    this.flush();
    const text = this.blocks
      .map((b, i) => (i === 0 ? '' : b.line && !b.groupStart && this.blocks[i - 1].line ? '\n' : '\n\n') + b.text)
      .join('');
    return { text, images: this.images };
  }

  private children(el: Element): void {
    for (const child of el.children) this.write(child);
  }

  private flush(verbatim = false): void {
    const text = verbatim
      ? this.inline.replace(/^\n+|\s+$/g, '')
      : this.inline
          .split('\n')
          .map((l) => l.replace(/\s+/g, ' ').trim())
          .filter(Boolean)
          .join('\n');
    this.inline = '';
    if (!text || /^(-|\d+\.)$/.test(text)) return; // nothing, or an empty list item
    this.blocks.push({ text, line: LINE_BLOCKS.has(this.open[this.open.length - 1] ?? ''), groupStart: this.groupStart });
    this.groupStart = false;
  }
}

const isTag = (node: AnyNode | null | undefined, name?: string): node is Element =>
  !!node && (node.type as string) === 'tag' && (name === undefined || (node as Element).name.toLowerCase() === name);

function hasPreviousCell(cell: Element): boolean {
  for (let node = cell.prev; node; node = node.prev) if (isTag(node, 'td') || isTag(node, 'th')) return true;
  return false;
}

function listMarker(li: Element): string {
  const parent = li.parent;
  if (!isTag(parent, 'ol')) return '- ';
  const items = parent.children.filter((c) => isTag(c, 'li'));
  const start = Number.parseInt(parent.attribs.start ?? '1', 10);
  return `${(Number.isFinite(start) ? start : 1) + items.indexOf(li)}. `;
}

/** Plain text of the given nodes (usually one root element). */
export function htmlToText(nodes: readonly AnyNode[]): HtmlText {
  const writer = new TextWriter();
  for (const node of nodes) writer.write(node);
  return writer.finish();
}
