/**
 * Entity resolution keys: a name folded for case, diacritics, punctuation, spacing and a plural last word, so
 * "Ada  Lovelace", "ada lovelace" and "Adá Lovelace" are one entity, and "Analytical Engines" meets
 * "Analytical Engine". Keys are only ever compared with keys made here.
 */
export function foldName(name: string): string {
  const words = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[’']s\b/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
    .split(' ')
    .filter(Boolean);
  if (words.length === 0) return '';
  const last = words[words.length - 1];
  if (last.length > 3 && last.endsWith('s') && !last.endsWith('ss') && !last.endsWith('us') && !last.endsWith('is'))
    words[words.length - 1] = last.endsWith('ies') ? `${last.slice(0, -3)}y` : last.slice(0, -1);
  return words.join(' ');
}

/** A display name: trimmed, single-spaced, without surrounding punctuation. */
export const cleanName = (name: string) =>
  name
    .replace(/\s+/g, ' ')
    .replace(/^[^\p{L}\p{N}]+|[^\p{L}\p{N}.)]+$/gu, '')
    .trim();

/** The keys of an entity: its folded name first, then its folded aliases, de-duplicated. */
export function keysOf(name: string, aliases: readonly string[]): string[] {
  return [...new Set([name, ...aliases].map(foldName).filter(Boolean))];
}

/** Lower-case entity type limited to letters, digits and underscores (`Person` -> `person`). */
export const normalizeType = (type: string) =>
  type
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '_')
    .replace(/^_+|_+$/g, '') || 'concept';
