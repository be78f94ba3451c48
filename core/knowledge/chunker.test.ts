import { DomainError } from '../shared/errors';
import { chunkText, normalizeWhitespace, type TextChunk } from './chunker';

/** Invariants every chunking must hold. */
function expectWellFormed(text: string, chunks: TextChunk[], size: number): void {
  const normalized = normalizeWhitespace(text);
  chunks.forEach((chunk, i) => {
    expect(chunk.index).toBe(i);
    expect(chunk.content).toBe(normalized.slice(chunk.start, chunk.end));
    expect(chunk.content.length).toBeGreaterThan(0);
    expect(chunk.content.length).toBeLessThanOrEqual(size);
    expect(chunk.content.trim()).toBe(chunk.content);
    if (i > 0) {
      expect(chunk.start).toBeGreaterThan(chunks[i - 1].start);
      expect(chunk.end).toBeGreaterThan(chunks[i - 1].end);
      // No gap: the next chunk starts at or before the previous end (plus the whitespace skipped).
      expect(normalized.slice(chunks[i - 1].end, chunk.start).trim()).toBe('');
    }
  });
  if (chunks.length > 0) {
    expect(chunks[0].start).toBe(0);
    expect(chunks[chunks.length - 1].end).toBe(normalized.length);
  }
}

const sentence = (n: number) => `Sentence number ${n} talks about the quarterly numbers in some detail.`;

describe('normalizeWhitespace', () => {
  it('unifies line endings, collapses spaces, trims lines and keeps one blank line between paragraphs', () => {
    const raw = '\ufeff  Title\r\n\r\n\r\n\r\nFirst\t\t line  \u00a0 here.  \r\nnext\u200b line\f\n\n\n\nLast  ';
    expect(normalizeWhitespace(raw)).toBe('Title\n\nFirst line here.\nnext line\n\nLast');
  });

  it('drops control characters', () => {
    expect(normalizeWhitespace('a\u0000b\u0007c\u007f')).toBe('abc');
  });
});

describe('chunkText', () => {
  it('returns no chunks for empty or whitespace-only text', () => {
    expect(chunkText('')).toEqual([]);
    expect(chunkText('  \n\n\t \r\n \u00a0 ')).toEqual([]);
  });

  it('returns one chunk for a short text, with normalised whitespace', () => {
    expect(chunkText('  Hello   world.\n\n\n Bye ')).toEqual([{ index: 0, content: 'Hello world.\n\nBye', start: 0, end: 17 }]);
  });

  it('uses the spec defaults of 1000 characters and 200 overlap', () => {
    const text = Array.from({ length: 60 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text);
    expectWellFormed(text, chunks, 1000);
    expect(chunks.length).toBeGreaterThan(4);
    for (const c of chunks.slice(0, -1)) expect(c.content.length).toBeGreaterThan(700);
  });

  it('keeps a text of exactly size characters in one chunk and splits at size + 1', () => {
    const exact = 'a'.repeat(100);
    expect(chunkText(exact, { size: 100, overlap: 10 })).toEqual([{ index: 0, content: exact, start: 0, end: 100 }]);
    const over = chunkText('a'.repeat(101), { size: 100, overlap: 10 });
    expect(over.map((c) => [c.start, c.end])).toEqual([
      [0, 100],
      [90, 101],
    ]);
  });

  it('fills a chunk exactly when a paragraph break falls right after size characters', () => {
    const first = 'x'.repeat(49) + '.';
    const text = `${first}\n\n${'y'.repeat(30)}`;
    const chunks = chunkText(text, { size: 50, overlap: 0 });
    expect(chunks.map((c) => c.content)).toEqual([first, 'y'.repeat(30)]);
  });

  it('cuts at paragraph boundaries before sentence boundaries', () => {
    const p1 = 'Alpha one. Alpha two. Alpha three. Alpha four.'; // 46 chars
    const p2 = 'Beta one. Beta two. Beta three. Beta four. Beta five.';
    const chunks = chunkText(`${p1}\n\n${p2}`, { size: 80, overlap: 0 });
    expect(chunks.map((c) => c.content)).toEqual([p1, p2]);
  });

  it('cuts at sentence boundaries when there is no paragraph break in reach', () => {
    const text = Array.from({ length: 10 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, { size: 300, overlap: 0 });
    expectWellFormed(text, chunks, 300);
    for (const c of chunks) expect(c.content).toMatch(/^Sentence number \d+ .*\.$/s);
  });

  it('cuts at whitespace when a sentence is longer than the chunk', () => {
    const text = Array.from({ length: 80 }, (_, i) => `word${i}`).join(' ');
    const chunks = chunkText(text, { size: 60, overlap: 15 });
    expectWellFormed(text, chunks, 60);
    for (const c of chunks) expect(c.content).toMatch(/^word\d+( word\d+)*$/);
  });

  it('cuts hard in a text with no spaces, with the exact overlap', () => {
    const text = 'abcdefghij'.repeat(25); // 250 characters, no boundary at all
    const chunks = chunkText(text, { size: 100, overlap: 20 });
    expectWellFormed(text, chunks, 100);
    expect(chunks.map((c) => [c.start, c.end])).toEqual([
      [0, 100],
      [80, 180],
      [160, 250],
    ]);
  });

  it('splits CJK text at its sentence marks and never inside a surrogate pair', () => {
    const cjk = Array.from({ length: 40 }, (_, i) => `这是第${i}个句子，内容关于季度报告。`).join('');
    const chunks = chunkText(cjk, { size: 100, overlap: 20 });
    expectWellFormed(cjk, chunks, 100);
    for (const c of chunks.slice(0, -1)) expect(c.content.endsWith('。')).toBe(true);
    // Later chunks start after a CJK comma or full stop, not mid-clause.
    for (const c of chunks.slice(1)) expect(cjk[c.start - 1]).toMatch(/[。，]/);

    const emoji = '😀'.repeat(120); // 240 code units, every character a surrogate pair
    const emojiChunks = chunkText(emoji, { size: 51, overlap: 11 });
    expectWellFormed(emoji, emojiChunks, 51);
    for (const c of emojiChunks) expect(c.content).toMatch(/^(😀)+$/u);
  });

  it('repeats the overlap content in both neighbours', () => {
    const text = Array.from({ length: 30 }, (_, i) => sentence(i)).join(' ');
    const chunks = chunkText(text, { size: 400, overlap: 100 });
    expectWellFormed(text, chunks, 400);
    const normalized = normalizeWhitespace(text);
    for (let i = 1; i < chunks.length; i++) {
      const shared = normalized.slice(chunks[i].start, chunks[i - 1].end);
      expect(shared.length).toBeGreaterThan(80);
      expect(shared.length).toBeLessThanOrEqual(100);
      expect(chunks[i - 1].content.endsWith(shared)).toBe(true);
      expect(chunks[i].content.startsWith(shared)).toBe(true);
      // Overlap starts at a word start.
      expect(normalized[chunks[i].start - 1]).toBe(' ');
    }
  });

  it('has no overlap when overlap is 0 and covers every character exactly once', () => {
    const text = Array.from({ length: 30 }, (_, i) => sentence(i)).join('\n');
    const chunks = chunkText(text, { size: 250, overlap: 0 });
    expectWellFormed(text, chunks, 250);
    expect(chunks.map((c) => c.content).join('\n')).toBe(normalizeWhitespace(text));
  });

  it('never emits whitespace-only chunks, even with heavy blank space', () => {
    const text = `A.${' \n \n '.repeat(500)}B.${'\t'.repeat(900)}C.`;
    const chunks = chunkText(text, { size: 5, overlap: 1 });
    expectWellFormed(text, chunks, 5);
    expect(chunks.map((c) => c.content)).toEqual(['A.', 'B. C.']);
  });

  it('is deterministic', () => {
    const text = Array.from({ length: 50 }, (_, i) => `${sentence(i)}${i % 7 === 0 ? '\n\n' : ' '}`).join('');
    expect(chunkText(text, { size: 333, overlap: 77 })).toEqual(chunkText(text, { size: 333, overlap: 77 }));
  });

  it('works with the smallest sizes', () => {
    expect(chunkText('ab cd', { size: 1, overlap: 0 }).map((c) => c.content)).toEqual(['a', 'b', 'c', 'd']);
    expect(chunkText('😀😀', { size: 1, overlap: 0 }).map((c) => c.content)).toEqual(['😀', '😀']);
  });

  it('rejects invalid options', () => {
    expect(() => chunkText('x', { size: 0 })).toThrow(DomainError);
    expect(() => chunkText('x', { size: 10, overlap: 10 })).toThrow(/overlap/);
    expect(() => chunkText('x', { size: 10, overlap: -1 })).toThrow(/overlap/);
    expect(() => chunkText('x', { size: 2.5 })).toThrow(/size/);
  });
});
