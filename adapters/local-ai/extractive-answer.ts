import type { ChatContextChunk, ChatMessage } from '../../core/ports/chat-model';
import { terms } from './text-features';

export const NO_ANSWER_TEXT = 'The knowledge base does not contain an answer to that question.';

const MAX_SENTENCES = 3;
const MAX_ANSWER_CHARS = 800;
const MAX_SENTENCE_CHARS = 400;
/** A sentence must cover at least this idf-weighted share of the question to be relevant. */
const MIN_SCORE = 0.2;
/** Sentences scoring under this share of the best one are left out. */
const RELATIVE_CUTOFF = 0.6;
const PAIR_BONUS = 0.15;
const DUPLICATE_JACCARD = 0.8;

const BLOCK_START = /^\s*(?:#{1,6}\s|[-*\u2022>]\s|\d+[.)]\s)/;
const SENTENCE_END = /(?<=[.!?])\s+(?=[\p{Lu}\p{N}"'([])/u;

/**
 * Splits a chunk into sentences. Single line breaks inside a paragraph (PDF text, wrapped lines) are joined;
 * blank lines, headings and list items start a new block. Markdown headings and list markers are dropped.
 */
export function splitSentences(content: string): string[] {
  const blocks: string[] = [];
  let current = '';
  for (const raw of content.split('\n')) {
    const line = raw.trim();
    const startsBlock = !line || BLOCK_START.test(line) || /[.!?:]$/.test(current) || current.startsWith('#');
    if (startsBlock && current) {
      blocks.push(current);
      current = '';
    }
    if (line) current = current ? `${current} ${line}` : line;
  }
  if (current) blocks.push(current);

  const sentences: string[] = [];
  for (const block of blocks) {
    if (/^#{1,6}\s/.test(block)) continue;
    const text = block.replace(BLOCK_START, '').replace(/\s+/g, ' ').trim();
    for (const s of text.split(SENTENCE_END)) {
      const sentence = s.trim();
      if (sentence) sentences.push(sentence.length > MAX_SENTENCE_CHARS ? cut(sentence, MAX_SENTENCE_CHARS) : sentence);
    }
  }
  return sentences;
}

function cut(text: string, max: number): string {
  const space = text.lastIndexOf(' ', max);
  return `${text.slice(0, space > max / 2 ? space : max)}\u2026`;
}

interface Candidate {
  text: string;
  order: number;
  stems: Set<string>;
  pairs: Set<string>;
  score: number;
}

function analyse(text: string): { stems: string[]; pairs: Set<string>; words: number } {
  const all = terms(text);
  const stems = all.filter((t) => !t.stop).map((t) => t.stem);
  const pairs = new Set<string>();
  for (let i = 1; i < stems.length; i++) pairs.add(`${stems[i - 1]} ${stems[i]}`);
  return { stems, pairs, words: all.length };
}

/**
 * Question terms with weights: the last user message's content words; when it has fewer than two (a follow-up
 * such as "and for annual plans?"), the previous user message's words join at half weight.
 */
function questionTerms(messages: ChatMessage[]): { weights: Map<string, number>; pairs: Set<string> } {
  const users = messages.filter((m) => m.role === 'user');
  const last = analyse(users[users.length - 1]?.content ?? '');
  const weights = new Map<string, number>(last.stems.map((s) => [s, 1]));
  if (weights.size < 2 && users.length > 1) {
    for (const s of analyse(users[users.length - 2].content).stems) if (!weights.has(s)) weights.set(s, 0.5);
  }
  return { weights, pairs: last.pairs };
}

/**
 * Picks the sentences of the context most relevant to the last user message (idf-weighted overlap of stemmed
 * content words, plus a bonus for word pairs in the question's order), keeps up to three non-duplicate ones in
 * their original order, or says plainly that the knowledge base has no answer.
 */
export function extractiveAnswer(messages: ChatMessage[], context: ChatContextChunk[] | undefined): { text: string; answered: boolean } {
  const question = questionTerms(messages);
  if (question.weights.size === 0 || !context?.length) return { text: NO_ANSWER_TEXT, answered: false };

  const candidates: Candidate[] = [];
  let order = 0;
  for (const chunk of context) {
    for (const sentence of splitSentences(chunk.content)) {
      const a = analyse(sentence);
      if (a.words < 3) continue;
      candidates.push({ text: sentence, order: order++, stems: new Set(a.stems), pairs: a.pairs, score: 0 });
    }
  }
  if (candidates.length === 0) return { text: NO_ANSWER_TEXT, answered: false };

  const n = candidates.length;
  let total = 0;
  const idf = new Map<string, number>();
  for (const [t, weight] of question.weights) {
    const df = candidates.reduce((count, c) => count + (c.stems.has(t) ? 1 : 0), 0);
    const w = weight * Math.log(1 + (n + 1) / (df + 0.5));
    idf.set(t, w);
    total += w;
  }
  for (const c of candidates) {
    let covered = 0;
    for (const [t, w] of idf) if (c.stems.has(t)) covered += w;
    if (covered === 0) continue;
    let pairs = 0;
    for (const p of question.pairs) if (c.pairs.has(p)) pairs++;
    c.score = covered / total + (question.pairs.size ? (PAIR_BONUS * pairs) / question.pairs.size : 0);
  }

  const ranked = candidates.filter((c) => c.score >= MIN_SCORE).sort((a, b) => b.score - a.score || a.order - b.order);
  if (ranked.length === 0) return { text: NO_ANSWER_TEXT, answered: false };

  const cutoff = Math.max(MIN_SCORE, ranked[0].score * RELATIVE_CUTOFF);
  const chosen: Candidate[] = [];
  let chars = 0;
  for (const c of ranked) {
    if (c.score < cutoff || chosen.length >= MAX_SENTENCES) break;
    if (chosen.some((k) => jaccard(k.stems, c.stems) >= DUPLICATE_JACCARD)) continue;
    if (chosen.length > 0 && chars + c.text.length > MAX_ANSWER_CHARS) continue;
    chosen.push(c);
    chars += c.text.length;
  }
  const text = chosen
    .sort((a, b) => a.order - b.order)
    .map((c) => (/[.!?\u2026]$/.test(c.text) ? c.text : `${c.text}.`))
    .join(' ');
  return { text, answered: true };
}

function jaccard(a: Set<string>, b: Set<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let both = 0;
  for (const x of a) if (b.has(x)) both++;
  return both / (a.size + b.size - both);
}
