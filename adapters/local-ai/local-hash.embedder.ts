import type { Embedder, EmbeddingResult } from '../../core/ports/embedder';
import { DomainError } from '../../core/shared/errors';
import { estimateTokens } from '../../core/shared/token-estimate';
import { term, tokenize } from './text-features';

export const LOCAL_EMBEDDING_MODEL = 'local/hash-embed-v1';

/** No options today; the schema exists so the composition root validates every adapter the same way. */
export type LocalEmbedderOptions = Record<string, never>;
export const localEmbedderOptionsSchema = { type: 'object', properties: {}, additionalProperties: false } as const;

/*
 * Feature hashing. Every feature (stemmed word, bigram of consecutive content words, character trigram of a
 * word padded as "<word>") is hashed to 32 bits; two bits say its kind, the rest pick a bucket and a sign.
 * Per feature, weight = kindWeight * (1 + ln tf); the signed sum per bucket is L2-normalised.
 */
const KIND_WORD = 0;
const KIND_STOPWORD = 1;
const KIND_BIGRAM = 2;
const KIND_TRIGRAM = 3;
const KIND_WEIGHT = [1, 0.15, 0.6, 0.25];
const MAX_TRIGRAM_WORD = 24;
const MAX_DIMENSIONS = 16_000;
/** Texts embedded between two event-loop turns, so a large batch does not starve other work. */
const SLICE = 64;

function fmix(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

function hashString(s: string, seed: number): number {
  let h = (0x811c9dc5 ^ seed) >>> 0;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return fmix(h);
}

/** Feature key: 28 hash bits above 2 kind bits, small enough to stay a V8 small integer (fast Map keys). */
const key = (hash: number, kind: number) => ((hash >>> 4) << 2) | kind;

interface WordFeatures {
  stemHash: number;
  stop: boolean;
  trigrams: number[];
}

const wordCache = new Map<string, WordFeatures>();
const WORD_CACHE_LIMIT = 200_000;

function wordFeatures(word: string): WordFeatures {
  let f = wordCache.get(word);
  if (f) return f;
  const t = term(word);
  const trigrams: number[] = [];
  if (!t.stop) {
    const w = word.length > MAX_TRIGRAM_WORD ? word.slice(0, MAX_TRIGRAM_WORD) : word;
    // "<" + w + ">" without building the string
    let a = 60;
    let b = w.charCodeAt(0);
    for (let i = 1; i <= w.length; i++) {
      const c = i < w.length ? w.charCodeAt(i) : 62;
      trigrams.push(key(fmix(Math.imul(Math.imul(a ^ 0x2f, 0x01000193) ^ b, 0x01000193) ^ c ^ 0x7a3c5e11), KIND_TRIGRAM));
      a = b;
      b = c;
    }
  }
  f = { stemHash: hashString(t.stem, 0x5bd1e995), stop: t.stop, trigrams };
  if (wordCache.size >= WORD_CACHE_LIMIT) wordCache.clear();
  wordCache.set(word, f);
  return f;
}

function add(counts: Map<number, number>, k: number) {
  counts.set(k, (counts.get(k) ?? 0) + 1);
}

/** The deterministic embedding of one text, as a unit vector of `dimensions` entries. */
export function hashEmbed(text: string, dimensions: number): number[] {
  const counts = new Map<number, number>();
  let previous = -1;
  for (const word of tokenize(text)) {
    const f = wordFeatures(word);
    if (f.stop) {
      add(counts, key(f.stemHash, KIND_STOPWORD));
      continue;
    }
    add(counts, key(f.stemHash, KIND_WORD));
    if (previous >= 0) add(counts, key(fmix(Math.imul(previous, 0x9e3779b1) ^ f.stemHash), KIND_BIGRAM));
    previous = f.stemHash;
    for (const t of f.trigrams) add(counts, t);
  }

  const vector = new Array<number>(dimensions).fill(0);
  for (const [k, tf] of counts) {
    const weight = KIND_WEIGHT[k & 3] * (1 + Math.log(tf));
    const bucket = (k >>> 3) % dimensions;
    vector[bucket] += k & 4 ? -weight : weight;
  }
  let norm = 0;
  for (let i = 0; i < dimensions; i++) norm += vector[i] * vector[i];
  if (norm === 0) {
    // no words at all: one fixed unit vector, so stores that divide by the norm never see zero
    vector[hashString('<empty>', 0) % dimensions] = 1;
    return vector;
  }
  norm = Math.sqrt(norm);
  for (let i = 0; i < dimensions; i++) vector[i] /= norm;
  return vector;
}

/**
 * Offline embeddings with real lexical signal (shared words, stems, word pairs and character trigrams), the
 * default when no provider key is configured. Same text, same vector, on every machine.
 */
export class LocalEmbedder implements Embedder {
  readonly id = 'local-hash-embed';
  readonly model = LOCAL_EMBEDDING_MODEL;
  readonly lexical = true;

  async embed(texts: string[], options: { dimensions: number; purpose: 'document' | 'query' }): Promise<EmbeddingResult> {
    const { dimensions } = options;
    if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
      throw new DomainError('VALIDATION', `dimensions must be an integer between 1 and ${MAX_DIMENSIONS}`);
    }
    const vectors: number[][] = [];
    let tokens = 0;
    for (let i = 0; i < texts.length; i++) {
      if (i > 0 && i % SLICE === 0) await new Promise<void>((resolve) => setImmediate(resolve));
      vectors.push(hashEmbed(texts[i], dimensions));
      tokens += estimateTokens(texts[i]);
    }
    return { vectors, model: this.model, usage: { tokens } };
  }
}
