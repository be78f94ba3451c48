import { randomUUID } from 'node:crypto';

import { type OpenApiOperation, sampleFor } from './schema-samples';

export interface FuzzRequest {
  operationId: string;
  kind: string;
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string | Buffer;
}

/** Deterministic PRNG (mulberry32) so a failing request can be reproduced from the seed. */
export function prng(seed: number) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const NUL = 'x\u0000y';
const HUGE = 'h'.repeat(300_000);
const deep = (n: number) => `${'['.repeat(n)}1${']'.repeat(n)}`;
const wrongValues = (schema: any): unknown[] => {
  const type = Array.isArray(schema?.type) ? schema.type[0] : schema?.type;
  switch (type) {
    case 'string':
      return [12345, true, null, [], {}, NUL, HUGE, '', ' ', '\u202e\ufeff', '%00', '../../etc/passwd', "' OR 1=1 --", '<script>'];
    case 'integer':
    case 'number':
      return ['12', 'abc', 1.5, -1, 1e308, -1e308, 2 ** 53 + 1, null, true, [], {}];
    case 'boolean':
      return ['true', 0, 1, null, [], {}];
    case 'array':
      return [{}, 'x', 1, null, Array.from({ length: 5000 }, () => 'x'), [null], [NUL], [[[[]]]]];
    case 'object':
      return [
        [],
        'x',
        1,
        null,
        { __proto__: { polluted: true } },
        JSON.parse('{"__proto__":{"polluted":true}}'),
        { constructor: { prototype: {} } },
      ];
    default:
      return [NUL, HUGE, 1, null, [], {}];
  }
};

const BAD_IDS = [
  'not-a-uuid',
  '00000000-0000-0000-0000-000000000000',
  'x'.repeat(2000),
  '%2e%2e',
  '%00',
  "1' OR '1'='1",
  '-1',
  '1e9',
  '%F0%9F%92%A9',
  '%C0%AF',
];
const BAD_QUERIES = [
  'limit=-1',
  'limit=abc',
  'limit=1e309',
  'offset=-5',
  'limit=999999999999',
  'limit[]=1&limit[]=2',
  `q=${'%00'}`,
  'limit=%00',
  'offset=1.5',
  `x=${'y'.repeat(5000)}`,
];
const BAD_TYPES = [
  'text/plain',
  'application/xml',
  'multipart/form-data; boundary=x',
  'application/x-www-form-urlencoded',
  'application/json; charset=utf-16',
  'application/json-patch+json',
  '',
];
const MALFORMED = ['{', '[]', 'null', '"string"', '123', '{"a":}', '\u0000', '{"a":1,"a":2}', '\ufeff{}', 'true', deep(20_000)];

/**
 * Requests generated from one operation's schemas: the valid sample and, field by field, missing fields, wrong
 * types, NUL and huge strings, extra and prototype-polluting fields; deep and malformed JSON; bad path ids and
 * query values; wrong content types. `fill` gives the path parameters (real resources, so validation is passed
 * and the handlers are reached).
 */
export function fuzzRequestsFor(op: OpenApiOperation, fill: (name: string) => string, auth: Record<string, string>): FuzzRequest[] {
  const out: FuzzRequest[] = [];
  const basePath = () => op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(fill(name)));
  const requiredQuery = new URLSearchParams();
  for (const p of op.parameters) if (p.in === 'query' && p.required) requiredQuery.set(p.name, String(sampleFor(p.schema)));
  const withQuery = (path: string, extra = '') => {
    const q = [requiredQuery.toString(), extra].filter(Boolean).join('&');
    return q ? `${path}?${q}` : path;
  };
  const jsonBody = op.body && op.body !== 'multipart';
  const sample: any = jsonBody ? (sampleFor(op.body) ?? {}) : undefined;
  const push = (kind: string, opts: { path?: string; body?: string | Buffer; contentType?: string; query?: string }) => {
    const headers: Record<string, string> = { ...auth };
    if (opts.contentType !== undefined) {
      if (opts.contentType) headers['content-type'] = opts.contentType;
    } else if (opts.body !== undefined) headers['content-type'] = 'application/json';
    out.push({
      operationId: op.operationId,
      kind,
      method: op.method,
      path: withQuery(opts.path ?? basePath(), opts.query),
      headers,
      body: opts.body,
    });
  };

  push('valid sample', { body: jsonBody ? JSON.stringify(sample) : undefined });
  for (const id of BAD_IDS) {
    if (!/\{\w+\}/.test(op.path)) break;
    push(`bad path id ${id.slice(0, 12)}`, {
      path: op.path.replace(/\{(\w+)\}/g, id),
      body: jsonBody ? JSON.stringify(sample) : undefined,
    });
  }
  // Operations without query parameters ignore the query string: two tries suffice there.
  const hasQuery = op.parameters.some((x) => x.in === 'query');
  for (const q of hasQuery ? BAD_QUERIES : BAD_QUERIES.slice(0, 2)) {
    push(`bad query ${q.slice(0, 20)}`, { query: q, body: jsonBody ? JSON.stringify(sample) : undefined });
  }
  for (const p of op.parameters.filter((x) => x.in === 'query')) {
    for (const v of wrongValues(p.schema).slice(0, 6))
      push(`query ${p.name}=${typeof v}`, {
        query: `${p.name}=${encodeURIComponent(typeof v === 'string' ? v.slice(0, 3000) : JSON.stringify(v))}`,
      });
  }
  if (op.body === 'multipart') {
    const boundary = `----fuzz${randomUUID()}`;
    const part = (name: string, filename: string, type: string, data: string) =>
      `--${boundary}\r\ncontent-disposition: form-data; name="${name}"; filename="${filename}"\r\ncontent-type: ${type}\r\n\r\n${data}\r\n`;
    const mp = `multipart/form-data; boundary=${boundary}`;
    push('multipart text', { body: `${part('file', 'a.txt', 'text/plain', 'hello')}--${boundary}--\r\n`, contentType: mp });
    push('multipart NUL filename', { body: `${part('file', 'a\u0000.txt', 'text/plain', 'hello')}--${boundary}--\r\n`, contentType: mp });
    push('multipart lying type', { body: `${part('file', 'a.png', 'image/png', 'not a png')}--${boundary}--\r\n`, contentType: mp });
    push('multipart wrong field', { body: `${part('other', 'a.txt', 'text/plain', 'x')}--${boundary}--\r\n`, contentType: mp });
    push('multipart truncated', { body: `${part('file', 'a.txt', 'text/plain', 'x')}`, contentType: mp });
    push('multipart no boundary', { body: 'garbage', contentType: 'multipart/form-data' });
    push('multipart as json', { body: '{}' });
    return out;
  }
  if (!jsonBody) return out;
  const props: Record<string, any> = op.body.properties ?? {};
  for (const name of op.body.required ?? []) {
    const { [name]: _dropped, ...rest } = sample;
    push(`missing ${name}`, { body: JSON.stringify(rest) });
  }
  for (const [name, schema] of Object.entries(props)) {
    for (const v of wrongValues(schema)) push(`${name} wrong ${typeof v}`, { body: JSON.stringify({ ...sample, [name]: v }) });
    if (schema?.type === 'array' && schema.items?.type === 'object') {
      const item: any = sampleFor(schema.items) ?? {};
      for (const [inner, innerSchema] of Object.entries<any>(schema.items.properties ?? {})) {
        for (const v of wrongValues(innerSchema).slice(0, 4))
          push(`${name}[].${inner} wrong`, { body: JSON.stringify({ ...sample, [name]: [{ ...item, [inner]: v }] }) });
      }
    }
  }
  for (const extra of [
    '{"__proto__":{"isAdmin":true}}',
    '{"constructor":{"prototype":{"x":1}}}',
    '{"zzUnknown":1}',
    '{"organizationId":"00000000-0000-4000-8000-000000000000"}',
  ]) {
    push(`extra ${extra.slice(2, 14)}`, { body: JSON.stringify({ ...sample, ...JSON.parse(extra) }) });
  }
  for (const m of MALFORMED) push(`malformed ${m.slice(0, 8)}`, { body: m });
  for (const depth of [40, 70, 1000, 100_000]) {
    push(`deep ${depth}`, { body: `{"nested":${deep(depth)}${Object.keys(sample).length ? `,${JSON.stringify(sample).slice(1)}` : '}'}` });
  }
  for (const t of BAD_TYPES) push(`content-type ${t || 'none'}`, { body: JSON.stringify(sample), contentType: t });
  push('body 2 MB', { body: JSON.stringify({ ...sample, filler: 'f'.repeat(2 * 1024 * 1024) }) });
  return out;
}

/** Extra random mutations of an operation's sample (seeded), to reach the request budget. */
export function randomMutations(
  op: OpenApiOperation,
  fill: (name: string) => string,
  auth: Record<string, string>,
  count: number,
  seed: number,
): FuzzRequest[] {
  if (!op.body || op.body === 'multipart') return [];
  const rand = prng(seed);
  const names = Object.keys(op.body.properties ?? {});
  const out: FuzzRequest[] = [];
  const path = op.path.replace(/\{(\w+)\}/g, (_m, name: string) => encodeURIComponent(fill(name)));
  const pool = [NUL, HUGE.slice(0, 20_000), -1, 0, 1e21, null, true, [], {}, [NUL], { a: NUL }, '\ud800', '💩'.repeat(100)];
  for (let i = 0; i < count; i++) {
    const body: any = { ...(sampleFor(op.body) as object) };
    const edits = 1 + Math.floor(rand() * 3);
    for (let e = 0; e < edits && names.length; e++)
      body[names[Math.floor(rand() * names.length)]!] = pool[Math.floor(rand() * pool.length)];
    out.push({
      operationId: op.operationId,
      kind: `random #${seed}:${i}`,
      method: op.method,
      path,
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  }
  return out;
}
