import zlib from 'node:zlib';

import Ajv from 'ajv';

import { DomainError } from '../../core/shared/errors';
import { ssrfFetcherOptionsSchema, SsrfGuardedFetcher } from './ssrf-guarded.fetcher';
import { closedPort, fakeResolver, type FixtureServer, startServer, v4 } from './test-fixtures';

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => undefined,
    (e: unknown) => e as DomainError,
  );

describe('SsrfGuardedFetcher: exchanges, bounds and options', () => {
  let server: FixtureServer;
  let A: number;
  const resolver = fakeResolver({ 'alias.test': v4('127.0.0.1') });
  let fetcher: SsrfGuardedFetcher;

  beforeAll(async () => {
    server = await startServer((req, res, body) => {
      const path = (req.url ?? '').split('?')[0];
      if (path === '/hello') {
        res.writeHead(200, { 'X-Custom-Header': 'Yes', 'Content-Type': 'text/plain' });
        res.end('hello');
      } else if (path === '/echo') {
        res.setHeader('Set-Cookie', ['a=1', 'b=2']);
        res.end(JSON.stringify({ method: req.method, headers: req.headers, body }));
      } else if (path === '/big') {
        res.writeHead(200, { 'Content-Length': '100' });
        res.end(Buffer.alloc(100, 'x'));
      } else if (path === '/forever') {
        res.writeHead(200, { 'Content-Type': 'application/octet-stream' });
        const chunk = Buffer.alloc(16 * 1024, 'y');
        const pump = () => {
          while (!res.destroyed && res.write(chunk));
          if (!res.destroyed) res.once('drain', pump);
        };
        pump();
      } else if (path === '/gzip') {
        res.writeHead(200, { 'Content-Encoding': 'gzip', 'Content-Type': 'text/plain' });
        res.end(zlib.gzipSync('compressed hello'));
      } else if (path === '/gzip-bomb') {
        res.writeHead(200, { 'Content-Encoding': 'gzip' });
        res.end(zlib.gzipSync(Buffer.alloc(8 * 1024 * 1024)));
      } else if (path === '/slow-body') {
        res.writeHead(200);
        res.write('partial');
      } else if (path === '/hang') {
        // never answers
      } else {
        res.writeHead(404).end('missing');
      }
    });
    A = server.port;
    fetcher = new SsrfGuardedFetcher({ allow: [`127.0.0.1:${A}`], lookup: resolver.lookup, userAgent: 'test-agent/1' });
  });
  afterAll(() => server.close());

  it('returns status, lower-cased headers, body and final url', async () => {
    const res = await fetcher.fetch({ url: `http://127.0.0.1:${A}/hello?x=1` });
    expect(res.status).toBe(200);
    expect(res.headers['x-custom-header']).toBe('Yes');
    expect(res.headers['content-type']).toBe('text/plain');
    expect(Object.keys(res.headers).every((k) => k === k.toLowerCase())).toBe(true);
    expect(res.body.toString()).toBe('hello');
    expect(res.url).toBe(`http://127.0.0.1:${A}/hello?x=1`);
    const seen = server.seen[server.seen.length - 1];
    expect(seen.url).toBe('/hello?x=1');
    expect(seen.headers['user-agent']).toBe('test-agent/1');
    expect(seen.headers.host).toBe(`127.0.0.1:${A}`);
  });

  it('returns non-2xx responses as they are', async () => {
    const res = await fetcher.fetch({ url: `http://127.0.0.1:${A}/nope` });
    expect(res).toMatchObject({ status: 404, body: Buffer.from('missing') });
  });

  it('sends method, body and caller headers, but keeps Host and Content-Length its own', async () => {
    const res = await fetcher.fetch({
      url: `http://alias.test:${A}/echo`,
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Host: 'evil.test', 'Content-Length': '1', 'X-Trace': 't1' },
      body: '{"q":1}',
    });
    const echoed = JSON.parse(res.body.toString());
    expect(echoed).toMatchObject({ method: 'POST', body: '{"q":1}' });
    expect(echoed.headers).toMatchObject({
      host: `alias.test:${A}`,
      'content-type': 'application/json',
      'content-length': '7',
      'x-trace': 't1',
    });
    expect(res.headers['set-cookie']).toBe('a=1, b=2');
    expect(resolver.calls).toEqual(['alias.test']);
  });

  it('answers HEAD with an empty body', async () => {
    const res = await fetcher.fetch({ url: `http://127.0.0.1:${A}/hello`, method: 'HEAD' });
    expect(res.status).toBe(200);
    expect(res.body).toHaveLength(0);
  });

  it('decodes gzip and drops the encoding headers', async () => {
    const res = await fetcher.fetch({ url: `http://127.0.0.1:${A}/gzip` });
    expect(res.body.toString()).toBe('compressed hello');
    expect(res.headers['content-encoding']).toBeUndefined();
  });

  it('refuses a body whose declared length exceeds maxBytes', async () => {
    const error = await failure(fetcher.fetch({ url: `http://127.0.0.1:${A}/big`, maxBytes: 50 }));
    expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE', details: { maxBytes: 50 } });
    await expect(fetcher.fetch({ url: `http://127.0.0.1:${A}/big`, maxBytes: 100 })).resolves.toMatchObject({
      status: 200,
    });
  });

  it('stops reading a body that streams forever', async () => {
    const error = await failure(fetcher.fetch({ url: `http://127.0.0.1:${A}/forever`, maxBytes: 256 * 1024 }));
    expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
    expect(error?.message).toMatch(/exceeds the limit of 262144 bytes/);
  });

  it('bounds the decoded size of a compressed body (gzip bomb)', async () => {
    const error = await failure(fetcher.fetch({ url: `http://127.0.0.1:${A}/gzip-bomb`, maxBytes: 1024 * 1024 }));
    expect(error).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('applies the constructor default for maxBytes', async () => {
    const small = new SsrfGuardedFetcher({ allow: [`127.0.0.1:${A}`], defaultMaxBytes: 10 });
    await expect(small.fetch({ url: `http://127.0.0.1:${A}/big` })).rejects.toMatchObject({
      code: 'PAYLOAD_TOO_LARGE',
    });
  });

  it('times out a server that never answers', async () => {
    const error = await failure(fetcher.fetch({ url: `http://127.0.0.1:${A}/hang`, timeoutMs: 300 }));
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'UPSTREAM_FAILED', message: 'request timed out after 300 ms' });
  });

  it('counts the body in the timeout', async () => {
    const error = await failure(fetcher.fetch({ url: `http://127.0.0.1:${A}/slow-body`, timeoutMs: 300 }));
    expect(error).toMatchObject({ code: 'UPSTREAM_FAILED', message: 'request timed out after 300 ms' });
  });

  it('counts name resolution in the timeout', async () => {
    const stuck = new SsrfGuardedFetcher({ lookup: () => new Promise(() => undefined), defaultTimeoutMs: 300 });
    await expect(stuck.fetch({ url: 'http://stuck.test/' })).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
      message: 'request timed out after 300 ms',
    });
  });

  it('reports network errors as UPSTREAM_FAILED with the cause', async () => {
    const port = await closedPort();
    const refusedConn = new SsrfGuardedFetcher({ allow: [`127.0.0.1:${port}`] });
    await expect(refusedConn.fetch({ url: `http://127.0.0.1:${port}/` })).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
      message: expect.stringMatching(/^network error: ECONNREFUSED/),
    });
    await expect(fetcher.fetch({ url: 'http://unknown.test/' })).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
      message: 'could not resolve host unknown.test (ENOTFOUND)',
    });
    const empty = new SsrfGuardedFetcher({ lookup: async () => [] });
    await expect(empty.fetch({ url: 'http://empty.test/' })).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
  });

  it('refuses header injection before anything is sent', async () => {
    const before = server.seen.length;
    await expect(fetcher.fetch({ url: `http://127.0.0.1:${A}/hello`, headers: { 'X-Evil': 'a\r\nHost: other' } })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    expect(server.seen).toHaveLength(before);
  });

  it('rejects invalid per-request limits', async () => {
    await expect(fetcher.fetch({ url: `http://127.0.0.1:${A}/hello`, timeoutMs: 0 })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
    await expect(fetcher.fetch({ url: `http://127.0.0.1:${A}/hello`, maxRedirects: -1 })).rejects.toMatchObject({
      code: 'VALIDATION',
    });
  });
});

describe('SsrfGuardedFetcher options', () => {
  it('describes itself', () => {
    expect(new SsrfGuardedFetcher().id).toBe('ssrf-guarded');
    expect(SsrfGuardedFetcher.optionsSchema).toBe(ssrfFetcherOptionsSchema);
  });

  it('has a JSON schema for the configurable options', () => {
    const validate = new Ajv({ useDefaults: true }).compile(ssrfFetcherOptionsSchema);
    const config: Record<string, unknown> = { userAgent: 'x/1', defaultTimeoutMs: 5000, defaultMaxBytes: 1024 };
    expect(validate(config)).toBe(true);
    expect(config.allow).toEqual([]);
    expect(validate({ allow: ['127.0.0.1:8080', '[::1]:8080'], defaultMaxRedirects: 3 })).toBe(true);
    expect(validate({ allow: ['localhost:8080'] })).toBe(false);
    expect(validate({ allow: ['127.0.0.1'] })).toBe(false);
    expect(validate({ defaultTimeoutMs: 0 })).toBe(false);
    expect(validate({ allowPrivate: true })).toBe(false);
  });

  it.each(['127.0.0.1', 'localhost:80', '::1:80', '127.0.0.1:0', '127.0.0.1:70000', 'example.com:443'])(
    'rejects the allow entry %j',
    (entry) => {
      expect(() => new SsrfGuardedFetcher({ allow: [entry] })).toThrow(DomainError);
    },
  );

  it('accepts IPv6 allow entries in brackets, compared canonically', async () => {
    const fetcher = new SsrfGuardedFetcher({ allow: ['[0:0:0:0:0:0:0:1]:9'], defaultTimeoutMs: 2000 });
    const error = await failure(fetcher.fetch({ url: 'http://[::1]:9/' }));
    // Allowed by policy, so the failure is the connection itself (nothing listens on port 9 of ::1).
    expect(error?.code).toBe('UPSTREAM_FAILED');
  });
});
