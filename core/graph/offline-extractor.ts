/**
 * The offline graph extractor: deterministic, no network, no model. Entities are capitalised spans (with
 * connectors such as "of" or "von" inside: "Bank of England"), pinned entities found by name or alias, and
 * short names resolved to a longer name of the same document ("Babbage" -> "Charles Babbage"). Types come
 * from cues (titles, first names, last words like "Society", "X is a mathematician", "in Paris").
 * Relationships come from patterns between two entities of a sentence ("X worked with Y", "X of Y", "X,
 * born in Y") and, failing a pattern, from co-occurrence in a sentence (`related_to`, weaker).
 */
import type { ExtractedEntity, ExtractedRelationship, GraphExtraction, GraphExtractor } from '../ports/graph-extractor';
import type { PinnedEntity } from '../ports/graph-store';
import { cleanName, foldName, normalizeType } from './names';
import { CONNECTORS, FIRST_NAMES, NOT_NAMES, PLACES, RELATION_PATTERNS, TITLES, TYPE_BY_LAST_WORD, TYPE_BY_NOUN } from './offline-lexicon';

interface Span {
  name: string;
  start: number;
  end: number;
  chunkIndex: number;
  /** A type cue seen at this mention (title, "in X", pinned). */
  cue: string | null;
  pinned: boolean;
}

interface Candidate {
  name: string;
  pinnedType: string | null;
  aliases: Set<string>;
  votes: Map<string, number>;
  mentions: Map<number, number>;
  multiWord: boolean;
}

const TOKEN = /[\p{L}\p{N}][\p{L}\p{M}\p{N}'’-]*/gu;
const isCap = (t: string) => /^\p{Lu}/u.test(t);
const MAX_PER_SENTENCE = 6;
const CO_OCCURRENCE_WEIGHT = 0.3;
const PATTERN_WEIGHT = 0.8;

/** Sentences of a text with their offsets. */
function sentencesOf(text: string): { text: string; offset: number }[] {
  const out: { text: string; offset: number }[] = [];
  const re = /[^.!?\n]+(?:[.!?]+|\n|$)/g;
  for (const m of text.matchAll(re)) if (m[0].trim()) out.push({ text: m[0], offset: m.index ?? 0 });
  return out;
}

const stripPossessive = (t: string) => t.replace(/[’']s$/u, '');

/** Capitalised spans of one sentence; a sentence-initial single word is kept only when `keepInitial` says so. */
function spansOf(sentence: string, chunkIndex: number, keepInitial: (word: string) => boolean): Span[] {
  const tokens = [...sentence.matchAll(TOKEN)].map((m) => ({ text: m[0], start: m.index ?? 0, end: (m.index ?? 0) + m[0].length }));
  const spans: Span[] = [];
  let i = 0;
  let title = false;
  while (i < tokens.length) {
    const t = tokens[i];
    const lower = t.text.toLowerCase();
    if (!isCap(t.text) || NOT_NAMES.has(lower)) {
      title = TITLES.has(lower.replace(/\.$/, '')) && isCap(t.text);
      i++;
      continue;
    }
    let j = i;
    while (j + 1 < tokens.length) {
      const gap = sentence.slice(tokens[j].end, tokens[j + 1].start);
      const possessive = /[’']s$/u.test(tokens[j].text);
      // "Babbage's Engine" is two names; "Queen's College" one
      if (!/^\s+$/.test(gap) || (possessive && !TITLES.has(stripPossessive(tokens[j].text).toLowerCase()))) break;
      const next = tokens[j + 1].text;
      if (isCap(next) && !NOT_NAMES.has(next.toLowerCase())) j++;
      else if (
        CONNECTORS.has(next) &&
        j + 2 < tokens.length &&
        isCap(tokens[j + 2].text) &&
        /^\s+$/.test(sentence.slice(tokens[j + 1].end, tokens[j + 2].start))
      )
        j += 2;
      else break;
    }
    const name = cleanName(stripPossessive(sentence.slice(t.start, tokens[j].end)));
    const initial = i === 0 && j === i;
    const prev = i > 0 ? tokens[i - 1].text.toLowerCase() : '';
    const cue = title ? 'person' : ['in', 'at', 'from', 'near', 'to'].includes(prev) && j === i ? 'place?' : null;
    if (name.length > 1 && (!initial || keepInitial(name)))
      spans.push({ name, start: t.start, end: tokens[j].end, chunkIndex, cue, pinned: false });
    title = false;
    i = j + 1;
  }
  return spans;
}

/** Pinned entities found by name or alias (whole words, any case). */
function pinnedSpans(sentence: string, chunkIndex: number, pinned: PinnedEntity[]): Span[] {
  const out: Span[] = [];
  const lower = sentence.toLowerCase();
  for (const p of pinned) {
    for (const label of [p.name, ...p.aliases]) {
      const l = label.toLowerCase();
      if (!l) continue;
      let at = lower.indexOf(l);
      while (at >= 0) {
        const before = at === 0 ? ' ' : lower[at - 1];
        const after = lower[at + l.length] ?? ' ';
        if (!/[\p{L}\p{N}]/u.test(before) && !/[\p{L}\p{N}]/u.test(after))
          out.push({ name: p.name, start: at, end: at + l.length, chunkIndex, cue: normalizeType(p.type), pinned: true });
        at = lower.indexOf(l, at + l.length);
      }
    }
  }
  return out;
}

/** Pinned spans win over capitalised spans they overlap; result in text order. */
function combine(found: Span[], pinned: Span[]): Span[] {
  const kept = found.filter((s) => !pinned.some((p) => p.start < s.end && s.start < p.end));
  return [...kept, ...pinned].sort((a, b) => a.start - b.start);
}

function typeOf(c: Candidate): string {
  if (c.pinnedType) return c.pinnedType;
  const words = c.name.split(/\s+/);
  const connector = words.findIndex((w) => CONNECTORS.has(w));
  for (const w of [words[words.length - 1], connector > 0 ? words[connector - 1] : ''])
    if (TYPE_BY_LAST_WORD[foldName(w)]) return TYPE_BY_LAST_WORD[foldName(w)];
  if (PLACES.has(foldName(c.name))) return 'place';
  const best = [...c.votes.entries()].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))[0];
  if (best && best[0] !== 'place?') return best[0];
  if (words.length >= 2 && FIRST_NAMES.has(words[0].toLowerCase())) return 'person';
  if (best) return 'place';
  return 'concept';
}

/** "X is a Swiss mathematician" -> person; the noun within four words after "is a" / "was an". */
function isAHint(sentence: string, span: Span): string | null {
  const m = /^\s*,?\s*(?:is|was|became)\s+(?:a|an|the)\s+((?:[\p{L}-]+\s+){0,3}[\p{L}-]+)/iu.exec(sentence.slice(span.end));
  if (!m) return null;
  for (const w of m[1].toLowerCase().split(/\s+/)) if (TYPE_BY_NOUN[w]) return TYPE_BY_NOUN[w];
  return null;
}

function relationType(between: string): string | null {
  const text = between
    .toLowerCase()
    .replace(/[,;:()"“”]/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  if (text.length > 40) return null;
  for (const [re, type] of RELATION_PATTERNS) if (re.test(text)) return type;
  return null;
}

export function extractOffline(input: { chunks: { index: number; content: string }[]; pinned: PinnedEntity[] }): GraphExtraction {
  const pinned = input.pinned.filter((p) => p.name.trim());
  // Words written with a capital inside sentences: a sentence-initial single word is a name only if seen so.
  const capitalisedInside = new Set<string>();
  for (const c of input.chunks)
    for (const s of sentencesOf(c.content))
      for (const m of [...s.text.matchAll(TOKEN)].slice(1)) if (isCap(m[0])) capitalisedInside.add(stripPossessive(m[0]));
  const keepInitial = (w: string) => capitalisedInside.has(w) || FIRST_NAMES.has(w.toLowerCase()) || PLACES.has(w.toLowerCase());

  const sentences: { text: string; chunkIndex: number; spans: Span[] }[] = [];
  for (const c of input.chunks)
    for (const s of sentencesOf(c.content))
      sentences.push({
        text: s.text,
        chunkIndex: c.index,
        spans: combine(spansOf(s.text, c.index, keepInitial), pinnedSpans(s.text, c.index, pinned)),
      });

  // Short names that are the first or last word of exactly one longer name of the document are that entity.
  const longNames = [...new Set(sentences.flatMap((s) => s.spans.map((x) => x.name)).filter((n) => n.includes(' ')))];
  const canonicalCache = new Map<string, string>();
  const canonicalOf = (name: string): string => {
    const cached = canonicalCache.get(name);
    if (cached !== undefined) return cached;
    const found = canonicalUncached(name);
    canonicalCache.set(name, found);
    return found;
  };
  const canonicalUncached = (name: string): string => {
    if (name.includes(' ')) {
      // "De Morgan" is "Augustus De Morgan" when exactly one longer name ends with it
      const longer = longNames.filter((l) => l !== name && l.endsWith(` ${name}`));
      return longer.length === 1 ? longer[0] : name;
    }
    const owners = longNames.filter((l) => {
      const w = l.split(/\s+/);
      if (w.some((x) => CONNECTORS.has(x))) return false;
      return w[w.length - 1] === name || (w[0] === name && !CONNECTORS.has(w[1]?.toLowerCase() ?? ''));
    });
    return owners.length === 1 ? owners[0] : name;
  };

  const candidates = new Map<string, Candidate>();
  const relations = new Map<string, ExtractedRelationship & { count: number }>();
  const evidenceOf = (text: string) => text.trim().replace(/\s+/g, ' ').slice(0, 500);
  let previous: { chunkIndex: number; named: { key: string }[]; text: string } | null = null;
  for (const s of sentences) {
    const named: { key: string; span: Span }[] = [];
    for (const span of s.spans) {
      const name = span.pinned ? span.name : canonicalOf(span.name);
      const key = foldName(name);
      if (!key) continue;
      let c = candidates.get(key);
      if (!c) {
        c = { name, pinnedType: null, aliases: new Set(), votes: new Map(), mentions: new Map(), multiWord: name.includes(' ') };
        candidates.set(key, c);
      }
      if (span.pinned) c.pinnedType = span.cue;
      if (span.name !== c.name) c.aliases.add(span.name);
      c.mentions.set(s.chunkIndex, (c.mentions.get(s.chunkIndex) ?? 0) + 1);
      const vote = span.pinned ? null : (isAHint(s.text, span) ?? span.cue);
      if (vote) c.votes.set(vote, (c.votes.get(vote) ?? 0) + (vote === 'place?' ? 0.5 : 1));
      if (named.length && named[named.length - 1].key === key) continue;
      named.push({ key, span });
    }
    const limited = named.slice(0, MAX_PER_SENTENCE);
    const relate = (a: { key: string }, b: { key: string }, type: string, evidence: string) => {
      if (a.key === b.key) return;
      const k = `${a.key}\u0000${b.key}\u0000${type}`;
      const seen = relations.get(k);
      if (seen) seen.count++;
      else relations.set(k, { source: a.key, target: b.key, type, weight: 0, chunkIndex: s.chunkIndex, evidence, count: 1 });
    };
    for (let i = 0; i < limited.length; i++)
      for (let j = i + 1; j < limited.length; j++) {
        const typed = j === i + 1 ? relationType(s.text.slice(limited[i].span.end, limited[j].span.start)) : null;
        relate(limited[i], limited[j], typed ?? 'related_to', evidenceOf(s.text));
      }
    // "Ada Lovelace was a mathematician. She was the daughter of Lord Byron": the subject of a sentence that
    // names no one else before it co-occurs with the previous sentence's entities (no pronoun resolution).
    if (previous && previous.chunkIndex === s.chunkIndex && limited.length)
      for (const p of previous.named.slice(0, 3)) relate(p, limited[0], 'related_to', evidenceOf(`${previous.text} ${s.text}`));
    previous = { chunkIndex: s.chunkIndex, named: limited, text: s.text };
  }

  const entities: ExtractedEntity[] = [...candidates.values()].map((c) => {
    const total = [...c.mentions.values()].reduce((a, b) => a + b, 0);
    const base = c.pinnedType ? 1 : c.multiWord ? 0.7 : 0.5;
    return {
      name: c.name,
      type: typeOf(c),
      aliases: [...c.aliases].sort(),
      confidence: Math.min(c.pinnedType ? 1 : 0.95, base + 0.05 * (total - 1)),
      mentions: [...c.mentions.entries()].map(([chunkIndex, count]) => ({ chunkIndex, count })),
    };
  });
  const relationships: ExtractedRelationship[] = [...relations.values()].map((r) => ({
    source: candidates.get(r.source)!.name,
    target: candidates.get(r.target)!.name,
    type: r.type,
    weight:
      r.type === 'related_to'
        ? Math.min(0.9, 1 - (1 - CO_OCCURRENCE_WEIGHT) ** r.count)
        : Math.min(1, PATTERN_WEIGHT + 0.05 * (r.count - 1)),
    chunkIndex: r.chunkIndex,
    evidence: r.evidence,
  }));
  return { entities, relationships, failedChunks: [], usage: null };
}

/** The offline extractor as a GraphExtractor (always available). */
export const offlineGraphExtractor: GraphExtractor = {
  id: 'offline',
  extract: async (input) => extractOffline(input),
};
