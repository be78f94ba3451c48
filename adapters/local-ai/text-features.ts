/**
 * The one tokenizer of the local provider, shared by the embedder, the reranker and the extractive answerer:
 * lower-cased, unicode-normalised (NFKD with combining marks removed, so "Café" and "cafe" match), split on
 * runs of letters and digits, apostrophes inside words dropped ("don't" -> "dont"), light English stemming.
 */

const ASCII_ONLY = /^[\x00-\x7f]*$/;
const APOSTROPHES = /['\u2019\u02bc]/g;
const MARKS = /\p{M}+/gu;
const ASCII_WORD = /[a-z0-9]+/g;
const UNICODE_WORD = /[\p{L}\p{N}]+/gu;

export function normalizeText(text: string): string {
  let t = text.toLowerCase();
  if (!ASCII_ONLY.test(t)) t = t.normalize('NFKD').replace(MARKS, '');
  if (t.includes("'") || t.includes('\u2019') || t.includes('\u02bc')) t = t.replace(APOSTROPHES, '');
  return t;
}

/** Normalised word tokens, unstemmed, in text order. */
export function tokenize(text: string): string[] {
  const t = normalizeText(text);
  return t.match(ASCII_ONLY.test(t) ? ASCII_WORD : UNICODE_WORD) ?? [];
}

// Common English function words plus chat filler; they keep a small weight in embeddings and are ignored
// when matching a question against sentences.
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are arent as at be because been before being below ' +
    'between both but by can cant cannot could couldnt did didnt do does doesnt doing dont down during each few ' +
    'for from further had hadnt has hasnt have havent having he hed hell hes her here heres hers herself him ' +
    'himself his how hows i id ill im ive if in into is isnt it its itself lets me more most mustnt my myself no ' +
    'nor not of off on once only or other ought our ours ourselves out over own same shant she shed shell shes ' +
    'should shouldnt so some such than that thats the their theirs them themselves then there theres these they ' +
    'theyd theyll theyre theyve this those through to too under until up very was wasnt we wed well were weve ' +
    'werent what whats when whens where wheres which while who whos whom why whys will with wont would wouldnt ' +
    'you youd youll youre youve your yours yourself yourselves also just may might must shall us via yes ' +
    'please thanks thank hi hello hey tell know want need get got'
  ).split(' '),
);

const VOWEL = /[aeiouy]/;
const DOUBLE_KEEP = new Set(['l', 's', 'z']);

function undouble(stem: string): string {
  const n = stem.length;
  if (n > 3 && stem[n - 1] === stem[n - 2] && !DOUBLE_KEEP.has(stem[n - 1]) && !VOWEL.test(stem[n - 1])) return stem.slice(0, -1);
  return stem;
}

/**
 * Light suffix stripping (a small subset of Porter): plurals, -ing/-ed, -ly, -ness, -ment, -ity, -ation, -ion
 * after t/s and a final -e, so "resetting"/"resets"/"reset", "organization"/"organized"/"organize" and "policies"/"policy" meet.
 * Words of 3 letters or fewer and words with other characters (digits, non-Latin) are returned as they are.
 */
export function stem(word: string): string {
  let w = word;
  if (w.length <= 3 || !/^[a-z]+$/.test(w)) return w;

  // plurals
  if (w.endsWith('sses')) w = w.slice(0, -2);
  else if (w.endsWith('ies') && w.length > 4) w = w.slice(0, -3) + 'y';
  else if (w.endsWith('s') && !w.endsWith('ss') && !w.endsWith('us') && !w.endsWith('is')) w = w.slice(0, -1);

  // inflections: "resetting" -> "reset", "used" -> "use", "added" -> "add"
  for (const suffix of ['ingly', 'edly', 'ing', 'ed']) {
    if (w.endsWith(suffix)) {
      const base = w.slice(0, -suffix.length);
      if (base.length >= 2 && VOWEL.test(base) && !(suffix === 'ed' && base.endsWith('e'))) {
        w = undouble(base);
        if (w.length <= 3 && !/[aeiouwxy]$/.test(w)) w += 'e';
      }
      break;
    }
  }

  // derivations
  for (const [suffix, min] of [
    ['ational', 4],
    ['ation', 4],
    ['ness', 3],
    ['ment', 4],
    ['ity', 4],
    ['ly', 4],
  ] as const) {
    if (w.endsWith(suffix) && w.length - suffix.length >= min) {
      w = w.slice(0, -suffix.length);
      break;
    }
  }
  // "connection" -> "connect", "discussion" -> "discuss"
  if ((w.endsWith('tion') || w.endsWith('sion')) && w.length >= 7) w = w.slice(0, -3);
  if (w.endsWith('y') && w.length > 3 && !VOWEL.test(w[w.length - 2])) w = w.slice(0, -1) + 'i';
  if (w.endsWith('e') && w.length > 3) w = w.slice(0, -1);
  return w;
}

export interface Term {
  /** Normalised surface form. */
  word: string;
  /** Stemmed form, the unit of matching. */
  stem: string;
  stop: boolean;
}

const termCache = new Map<string, Term>();
const TERM_CACHE_LIMIT = 100_000;

/** Cached stem + stopword lookup for a normalised token (pure: the cache only saves work). */
export function term(word: string): Term {
  let t = termCache.get(word);
  if (!t) {
    if (termCache.size >= TERM_CACHE_LIMIT) termCache.clear();
    t = { word, stem: stem(word), stop: STOPWORDS.has(word) };
    termCache.set(word, t);
  }
  return t;
}

export function terms(text: string): Term[] {
  return tokenize(text).map(term);
}
