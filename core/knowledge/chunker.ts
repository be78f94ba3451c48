/**
 * Splits extracted document text into overlapping chunks for embedding. Pure and deterministic.
 *
 * The text is first normalised (see `normalizeWhitespace`); `start` and `end` of each chunk are offsets
 * into that normalised text, and `content === normalized.slice(start, end)`.
 *
 * Each chunk holds at most `size` characters (UTF-16 code units). A chunk ends at the latest paragraph
 * break in the second half of the window, else the latest line break, else the latest sentence end,
 * else the latest space, else it is cut hard (never inside a surrogate pair). The next chunk starts about
 * `overlap` characters before the previous cut, moved forward to the next word start so neighbours
 * share whole words.
 */
import type { ChunkOptions, TextChunk } from '../ports/heavy-work';
import { DomainError } from '../shared/errors';

export type { ChunkOptions, TextChunk };

export const DEFAULT_CHUNK_SIZE = 1000;
export const DEFAULT_CHUNK_OVERLAP = 200;

/** Latin and CJK sentence terminators. */
const SENTENCE_END = new Set(['.', '!', '?', '…', '。', '！', '？', '；', '｡']);
/** Terminators that end a sentence without a following space (CJK scripts do not use spaces). */
const SPACELESS_SENTENCE_END = new Set(['。', '！', '？', '；', '｡']);
/** Closing marks that belong to the sentence they follow. */
const CLOSERS = new Set(['"', "'", '”', '’', ')', ']', '»', '」', '』', '】', '》', '）']);
/** CJK punctuation after which a chunk may start when the text has no spaces. */
const CJK_BREAKS = new Set(['。', '！', '？', '；', '，', '、', '：', '｡', '､']);

/**
 * Unifies line endings, drops control and zero-width characters, collapses runs of spaces and tabs to
 * one space, trims every line, keeps at most one blank line between paragraphs, and trims the text.
 */
export function normalizeWhitespace(text: string): string {
  return text
    .replace(/\r\n?|[\u2028\u2029\u0085\f\v]/g, '\n')
    .replace(/[\u0000-\u0008\u000e-\u001f\u007f\u200b\ufeff\u00ad]/g, '')
    .replace(/[^\S\n]+/g, ' ')
    .replace(/ ?\n ?/g, '\n')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}

export function chunkText(text: string, options: ChunkOptions = {}): TextChunk[] {
  const size = options.size ?? DEFAULT_CHUNK_SIZE;
  const overlap = options.overlap ?? DEFAULT_CHUNK_OVERLAP;
  if (!Number.isInteger(size) || size < 1) {
    throw new DomainError('VALIDATION', 'Chunk size must be a positive integer', { size });
  }
  if (!Number.isInteger(overlap) || overlap < 0 || overlap >= size) {
    throw new DomainError('VALIDATION', 'Chunk overlap must be an integer from 0 to size - 1', { size, overlap });
  }

  const t = normalizeWhitespace(text);
  const chunks: TextChunk[] = [];
  let pos = 0;
  while (pos < t.length) {
    const cut = t.length - pos <= size ? t.length : findCut(t, pos, size, overlap);
    let end = cut;
    while (end > pos && isSpace(t[end - 1])) end--;
    chunks.push({ index: chunks.length, content: t.slice(pos, end), start: pos, end });
    if (cut >= t.length) break;
    pos = nextStart(t, pos, cut, overlap);
  }
  return chunks;
}

const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\n';
const isHighSurrogate = (code: number): boolean => code >= 0xd800 && code <= 0xdbff;
const isLowSurrogate = (code: number): boolean => code >= 0xdc00 && code <= 0xdfff;

/** End (exclusive) of the chunk starting at pos; called only when more than `size` characters remain. */
function findCut(t: string, pos: number, size: number, overlap: number): number {
  const limit = pos + size;
  // Cutting before minCut would make small chunks, or fail to move past the overlap of the next one.
  const minCut = Math.min(limit, pos + Math.max(Math.ceil(size / 2), overlap + 1));

  // Search only the window: String#lastIndexOf would scan back to the start of a long text.
  const window = t.slice(minCut, limit + 2);
  for (const boundary of ['\n\n', '\n']) {
    const i = window.lastIndexOf(boundary, limit - minCut);
    if (i >= 0) return minCut + i;
  }
  for (let c = limit; c >= minCut; c--) {
    if (isSentenceEnd(t, c)) return c;
  }
  const space = window.lastIndexOf(' ', limit - minCut);
  if (space >= 0) return minCut + space;

  if (isHighSurrogate(t.charCodeAt(limit - 1))) {
    // Keep the pair together: shorter chunk if possible, else one character over (only when size is 1).
    return limit - 1 > pos ? limit - 1 : limit + 1;
  }
  return limit;
}

/** True when a sentence ends just before offset c. */
function isSentenceEnd(t: string, c: number): boolean {
  if (c <= 0 || CLOSERS.has(t[c] ?? '')) return false;
  let k = c - 1;
  while (k > 0 && CLOSERS.has(t[k])) k--;
  const mark = t[k];
  if (!SENTENCE_END.has(mark)) return false;
  return SPACELESS_SENTENCE_END.has(mark) || c >= t.length || isSpace(t[c]);
}

/** Start of the chunk after a cut: about `overlap` characters back, at a word start when there is one. */
function nextStart(t: string, pos: number, cut: number, overlap: number): number {
  let s = cut;
  if (overlap > 0) {
    const target = Math.max(pos + 1, cut - overlap);
    s = target;
    for (let i = target; i < cut; i++) {
      const before = t[i - 1];
      if (!isSpace(t[i]) && (isSpace(before) || CJK_BREAKS.has(before))) {
        s = i;
        break;
      }
    }
    if (isLowSurrogate(t.charCodeAt(s))) s++;
  }
  while (s < t.length && isSpace(t[s])) s++;
  return s;
}
