/**
 * Checks the raw request target before anything normalises it. Dot segments are refused in every spelling:
 * plain, percent-encoded (any case), double- or triple-encoded, %u-encoded, with backslash separators,
 * with `;params` (`..;`), and full-width dots that NFKC folds to '.'.
 */
export type PathCheck =
  | { ok: true; /** Decoded, lower-cased, '/'-separated, repeated slashes collapsed: for lane choice only. */ canonicalPath: string }
  | { ok: false; message: string };

const MAX_DECODE_ROUNDS = 4;
const PCT = /%([0-9a-fA-F]{2})/g;
const PCT_U = /%u([0-9a-fA-F]{4})/gi;
const SEPARATOR = /[/\\]/;

const CONTROL = /[\x00-\x1f\x7f]/;

function decodeOnce(s: string): string {
  return s
    .replace(PCT_U, (_, h: string) => String.fromCharCode(parseInt(h, 16)))
    .replace(PCT, (_, h: string) => String.fromCharCode(parseInt(h, 16)));
}

function isDot(segment: string): boolean {
  const bare = segment.split(';', 1)[0]!;
  return bare === '.' || bare === '..';
}

function hasDotSegment(view: string): boolean {
  if (view.split(SEPARATOR).some(isDot)) return true;
  // The same bytes read as UTF-8 and NFKC-folded (full-width dot U+FF0E, one-dot leader U+2024...).
  let folded: string;
  try {
    folded = Buffer.from(view, 'latin1').toString('utf8').normalize('NFKC');
  } catch {
    return false;
  }
  return folded !== view && folded.split(SEPARATOR).some(isDot);
}

export function checkPath(rawTarget: string): PathCheck {
  if (!rawTarget.startsWith('/')) return { ok: false, message: 'Request target must be an absolute path' };
  let end = rawTarget.length;
  const q = rawTarget.indexOf('?');
  if (q !== -1) end = q;
  const h = rawTarget.indexOf('#');
  if (h !== -1 && h < end) end = h;
  let view = rawTarget.slice(0, end);

  // Fast path: nothing encoded, no dots, no backslash.
  if (!/[%.\\]/.test(view) && !/[^\x21-\x7e]/.test(view)) {
    return { ok: true, canonicalPath: canonical(view) };
  }
  for (let round = 0; ; round++) {
    if (hasDotSegment(view)) return { ok: false, message: 'Path must not contain dot segments' };
    const next = decodeOnce(view);
    if (next === view) break;
    if (round === MAX_DECODE_ROUNDS) return { ok: false, message: 'Path is encoded too many times' };
    view = next;
  }
  if (CONTROL.test(view)) return { ok: false, message: 'Path must not contain control characters' };
  return { ok: true, canonicalPath: canonical(view) };
}

function canonical(decoded: string): string {
  return decoded
    .replace(/\\/g, '/')
    .replace(/\/{2,}/g, '/')
    .toLowerCase();
}
