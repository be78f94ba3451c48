import { DomainError } from '../../core/shared/errors';

/** application/json and its +json variants. */
export const JSON_CONTENT_TYPE = /^application\/(?:[\w.+-]+\+)?json\s*(?:;|$)/i;

/**
 * Depth of the deepest nesting in JSON text, found in one pass without parsing (so a body nested 100,000
 * deep never reaches JSON.parse's recursion); stops counting once `max` is passed.
 */
export function jsonDepthExceeds(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92)
        i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) inString = true;
    else if (c === 123 || c === 91) {
      if (++depth > max) return true;
    } else if (c === 125 || c === 93) depth--;
  }
  return false;
}

/** NUL, and UTF-16 surrogates without their pair: neither can be stored as Postgres text or jsonb. */
const UNSTORABLE = /\u0000|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Path of the first string (value or key) holding a character Postgres cannot store, or null. Iterative. */
export function findNul(value: unknown, where = 'body'): string | null {
  const stack: [unknown, string][] = [[value, where]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (typeof v === 'string') {
      if (UNSTORABLE.test(v)) return path;
    } else if (Array.isArray(v)) {
      v.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
    } else if (v !== null && typeof v === 'object') {
      for (const [k, item] of Object.entries(v)) {
        if (UNSTORABLE.test(k)) return path;
        stack.push([item, `${path}.${k}`]);
      }
    }
  }
  return null;
}

export function assertNoNul(value: unknown, where: string): void {
  const at = findNul(value, where);
  if (at)
    throw new DomainError('VALIDATION', `${at} must not contain NUL characters or unpaired surrogates`, [
      { field: at, message: 'contains a NUL character or an unpaired surrogate' },
    ]);
}

/**
 * Keys that name the prototype machinery. JSON.parse makes `{"__proto__": {...}}` an own property (no pollution
 * at parse time), but stored in a free-form object (KB settings, agent variables, channel config) it becomes the
 * prototype of the object a later spread or merge builds, and it cannot be removed by a PATCH. Refused at any
 * depth, in every JSON body, here where bodies are parsed for every operation.
 */
const RESERVED_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/** Path and name of the first reserved key (`__proto__`, `constructor`, `prototype`) at any depth, or null. Iterative. */
export function findReservedKey(value: unknown, where = 'body'): { path: string; key: string } | null {
  const stack: [unknown, string][] = [[value, where]];
  while (stack.length) {
    const [v, path] = stack.pop()!;
    if (Array.isArray(v)) v.forEach((item, i) => stack.push([item, `${path}[${i}]`]));
    else if (v !== null && typeof v === 'object') {
      // Object.keys lists the own `__proto__` property JSON.parse creates.
      for (const k of Object.keys(v)) {
        if (RESERVED_KEYS.has(k)) return { path: `${path}.${k}`, key: k };
        stack.push([(v as Record<string, unknown>)[k], `${path}.${k}`]);
      }
    }
  }
  return null;
}

export function assertNoReservedKeys(value: unknown, where: string): void {
  const found = findReservedKey(value, where);
  if (found)
    throw new DomainError('VALIDATION', `${found.path}: the key "${found.key}" is not allowed (__proto__, constructor, prototype)`, [
      { field: found.path, message: `reserved key "${found.key}" is not allowed` },
    ]);
}

/**
 * Parses a JSON request body: depth capped, no NUL in any string, no `__proto__`/`constructor`/`prototype` key,
 * errors as 400 Validation Error.
 */
export function parseJsonBody(raw: Buffer, maxDepth: number): unknown {
  const text = raw.toString('utf8');
  if (text.trim() === '') return undefined;
  if (jsonDepthExceeds(text, maxDepth)) {
    throw new DomainError('VALIDATION', `Request body nests deeper than ${maxDepth} levels`);
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new DomainError('VALIDATION', 'Request body is not valid JSON');
  }
  assertNoNul(parsed, 'body');
  assertNoReservedKeys(parsed, 'body');
  return parsed;
}
