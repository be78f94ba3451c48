/**
 * How strongly a query names a document by its title (0-1), a ranking feature of the offline profile
 * (ranking.ts). Half is the share of the title's words the query contains, half whether the query holds the
 * whole title as consecutive words. The full-text half indexes the title once per chunk, which BM25 dilutes
 * among the chunk's words: a question naming `pg` ranked `pg-pool`, `pg-cloudflare` and `pg-types` chunks
 * (each saying "pg" often) above the README of `pg` itself (bench/results/retrieval-eval.json, name class).
 */

const WORD = /[\p{L}\p{N}]+/gu;
const MARKS = /\p{M}+/gu;

/** Function words a question is made of; they do not name a title. */
const STOP = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can cannot could did do does doing down during each few for from further had ' +
    'has have having he her here hers him his how i if in into is it its itself me more most my no nor ' +
    'not of off on once only or other our out over own same she should so some such than that the their ' +
    'them then there these they this those through to too under until up very was we were what when ' +
    'where which while who whom why will with would you your also just may might must shall us via yes ' +
    'please thanks know want need get got use'
  ).split(' '),
);

export function words(text: string): string[] {
  return text.toLowerCase().normalize('NFKD').replace(MARKS, '').match(WORD) ?? [];
}

/** Prepared once per query, applied to each candidate's title. */
export class TitleMatcher {
  private readonly all: string[];
  private readonly content: Set<string>;

  constructor(query: string) {
    this.all = words(query);
    this.content = new Set(this.all.filter((w) => !STOP.has(w)));
  }

  score(title: string | null | undefined): number {
    if (!title || this.content.size === 0) return 0;
    const t = words(title);
    if (t.length === 0) return 0;
    const covered = t.filter((w) => this.content.has(w)).length / t.length;
    return (covered + (this.containsRun(t) ? 1 : 0)) / 2;
  }

  private containsRun(t: string[]): boolean {
    // a title made only of function words ("is", "it") would match most questions
    if (!t.some((w) => !STOP.has(w))) return false;
    outer: for (let i = 0; i + t.length <= this.all.length; i++) {
      for (let j = 0; j < t.length; j++) if (this.all[i + j] !== t[j]) continue outer;
      return true;
    }
    return false;
  }
}
