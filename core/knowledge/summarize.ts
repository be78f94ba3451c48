/**
 * Extractive summary and topics for the document map: no model involved, deterministic, cheap enough to
 * run on every document. The summary is the two or three most central sentences (by the document's own
 * content-word frequencies), in document order; the topics are the most frequent content words and word
 * pairs, title words counted extra.
 */
import type { DocumentDigest } from '../ports/heavy-work';

const STOPWORDS = new Set(
  (
    'a about above after again against all also am an and any are as at be because been before being below between both but by can could did do does doing ' +
    'down during each few for from further had has have having he her here hers herself him himself his how i if in into is it its itself just me more most ' +
    'my myself no nor not now of off on once only or other our ours ourselves out over own same she should so some such than that the their theirs them ' +
    'themselves then there these they this those through to too under until up very was we were what when where which while who whom why will with would ' +
    'you your yours yourself yourselves may might must shall one two also use used using page per via within without yes'
  ).split(' '),
);

const WORD = /[\p{L}\p{N}][\p{L}\p{N}'’-]*/gu;

function contentWords(text: string): string[] {
  const out: string[] = [];
  for (const m of text.toLowerCase().matchAll(WORD)) {
    const w = m[0].replace(/['’]s$/, '').replace(/['’-]+$/, '');
    if (w.length >= 3 && !STOPWORDS.has(w) && !/^\d+$/.test(w)) out.push(w);
  }
  return out;
}

export function splitSentences(text: string): string[] {
  return text
    .split(/(?<=[.!?。！？])\s+|\n+/)
    .map((s) => s.trim())
    .filter((s) => s.length >= 20);
}

export type { DocumentDigest };

export function summarize(
  text: string,
  options: { title?: string; maxSentences?: number; maxChars?: number; maxTopics?: number } = {},
): DocumentDigest {
  const maxSentences = options.maxSentences ?? 3;
  const maxChars = options.maxChars ?? 400;
  const maxTopics = options.maxTopics ?? 6;
  const sample = text.length > 200_000 ? text.slice(0, 200_000) : text;

  const tf = new Map<string, number>();
  const pairs = new Map<string, number>();
  for (const line of sample.split(/\n+/)) {
    const words = contentWords(line);
    words.forEach((w, i) => {
      tf.set(w, (tf.get(w) ?? 0) + 1);
      if (i > 0) pairs.set(`${words[i - 1]} ${w}`, (pairs.get(`${words[i - 1]} ${w}`) ?? 0) + 1);
    });
  }
  for (const w of contentWords(options.title?.replace(/\.[a-z0-9]{1,5}$/i, '') ?? '')) tf.set(w, (tf.get(w) ?? 0) + 2);

  const sentences = splitSentences(sample).slice(0, 400);
  const scored = sentences.map((s, position) => {
    const words = contentWords(s);
    const weight = words.reduce((sum, w) => sum + Math.log(1 + (tf.get(w) ?? 0)), 0);
    // favour sentences of ordinary length and early position a little
    return { s, position, score: words.length ? weight / Math.sqrt(words.length + 4) - position * 0.002 : 0 };
  });
  const chosen = [...scored].sort((a, b) => b.score - a.score || a.position - b.position).slice(0, maxSentences);
  chosen.sort((a, b) => a.position - b.position);
  let summary = '';
  for (const { s } of chosen) {
    const next = summary ? `${summary} ${s}` : s;
    if (next.length > maxChars) {
      if (!summary) summary = `${s.slice(0, maxChars - 1).trimEnd()}…`;
      break;
    }
    summary = next;
  }
  if (!summary) summary = sample.slice(0, maxChars).trim();

  const topPairs = [...pairs].filter(([, n]) => n >= 2).sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const topWords = [...tf].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  const topics: string[] = [];
  for (const [p] of topPairs.slice(0, Math.floor(maxTopics / 3))) topics.push(p);
  for (const [w] of topWords) {
    if (topics.length >= maxTopics) break;
    if (!topics.some((t) => t.split(' ').includes(w))) topics.push(w);
  }
  return { summary, topics };
}
