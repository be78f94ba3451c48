/**
 * Synthetic but realistic text for the search benchmarks: Zipf-distributed words over a 20k vocabulary (stop
 * words first, then the words of the labelled retrieval corpus, then pseudo-words), deterministic per seed.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

function rng(seed: number) {
  let s = seed >>> 0;
  return () => (s = (Math.imul(s, 1664525) + 1013904223) >>> 0) / 2 ** 32;
}

const STOPWORDS =
  'the of and to a in is that it for as with was on be by at this are from or an which but not have has were their its can more all also'.split(
    ' ',
  );

/**
 * English-like text: Zipf-distributed tokens (exponent 1) over a 20 000-word vocabulary whose most frequent
 * ranks are real stop words, then the corpus's own words, then pronounceable pseudo-words.
 */
export function textGenerator(seed = 7) {
  const corpus = JSON.parse(readFileSync(join(__dirname, '../../test/fixtures/retrieval/corpus.json'), 'utf8')) as {
    documents: { text: string }[];
  };
  const random = rng(seed);
  const real = [...new Set(corpus.documents.flatMap((d) => d.text.toLowerCase().match(/[a-z]+/g) ?? []))].filter(
    (w) => !STOPWORDS.includes(w),
  );
  const syllables = ['ba', 'ko', 'ri', 'tel', 'man', 'sor', 'vi', 'den', 'pla', 'gu', 'ster', 'lo', 'nex', 'cra', 'mi', 'tor'];
  const pseudo = new Set<string>();
  while (pseudo.size < 20_000 - real.length - STOPWORDS.length) {
    pseudo.add(Array.from({ length: 2 + Math.floor(random() * 3) }, () => syllables[Math.floor(random() * syllables.length)]).join(''));
  }
  const vocabulary = [...STOPWORDS, ...real, ...pseudo];
  // inverse CDF of a Zipf(1) law, approximated by the harmonic integral: rank = N^u
  const word = () => vocabulary[Math.min(vocabulary.length - 1, Math.floor(vocabulary.length ** random()) - 1)];
  const sentence = (min = 8, spread = 14) => {
    const w = Array.from({ length: min + Math.floor(random() * spread) }, word);
    w[0] = w[0][0].toUpperCase() + w[0].slice(1);
    return `${w.join(' ')}.`;
  };
  const paragraph = () => Array.from({ length: 3 + Math.floor(random() * 4) }, () => sentence()).join(' ');
  return {
    document: (chars: number) => {
      let t = '';
      while (t.length < chars) t += `${paragraph()}\n\n`;
      return t;
    },
    question: () => sentence(4, 6).replace(/\.$/, '?'),
  };
}
