import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import https from 'node:https';
import net, { type AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { SsrfGuardedFetcher } from './ssrf-guarded.fetcher';
import { fakeResolver, type FixtureServer, startServer, v4 } from './test-fixtures';

/** Server A (127.0.0.1:A) is the one allowed endpoint; server B (127.0.0.1:B) stands for an internal service. */
describe('SsrfGuardedFetcher: redirects', () => {
  let a: FixtureServer;
  let b: FixtureServer;
  let A: number;
  let fetcher: SsrfGuardedFetcher;
  const resolver = fakeResolver({ 'alias.test': v4('127.0.0.1'), 'internal.test': v4('10.0.0.1') });

  beforeAll(async () => {
    b = await startServer((_req, res) => res.end('internal secret'));
    a = await startServer((req, res, body) => {
      const url = new URL(req.url ?? '/', 'http://fixture');
      const chain = /^\/chain\/(\d+)$/.exec(url.pathname);
      if (url.pathname === '/redirect') {
        res.writeHead(Number(url.searchParams.get('status') ?? 302), { Location: url.searchParams.get('to') ?? '' });
        res.end('moved');
      } else if (chain && Number(chain[1]) > 0) {
        res.writeHead(302, { Location: `./${Number(chain[1]) - 1}` }).end();
      } else if (url.pathname === '/loop') {
        res.writeHead(301, { Location: '/loop' }).end();
      } else {
        res.end(JSON.stringify({ path: url.pathname, method: req.method, headers: req.headers, body }));
      }
    });
    A = a.port;
    fetcher = new SsrfGuardedFetcher({ allow: [`127.0.0.1:${A}`], lookup: resolver.lookup, defaultTimeoutMs: 3000 });
  });
  afterAll(async () => {
    await a.close();
    await b.close();
  });

  const redirectTo = (to: string, status = 302) => `http://127.0.0.1:${A}/redirect?status=${status}&to=${encodeURIComponent(to)}`;

  it.each([
    ['127.0.0.1 on another port', () => `http://127.0.0.1:${b.port}/secret`],
    ['an octal form of it', () => `http://0177.0.0.1:${b.port}/secret`],
    ['10.0.0.1', () => 'http://10.0.0.1/'],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['a name resolving to a private address', () => 'http://internal.test/'],
    ['IPv6 loopback on the allowed port', () => `http://[::1]:${A}/`],
    ['localhost on the allowed port', () => `http://localhost:${A}/`],
    ['a file: URL', () => 'file:///etc/passwd'],
    ['a gopher: URL', () => `gopher://127.0.0.1:${b.port}/_x`],
  ])('refuses a redirect to %s', async (_name, target) => {
    await expect(fetcher.fetch({ url: redirectTo(target()) })).rejects.toMatchObject({ code: 'UNSUPPORTED_URL' });
    expect(b.seen).toHaveLength(0);
  });

  it('refuses a redirect to an internal address on every redirect status', async () => {
    for (const status of [301, 302, 303, 307, 308]) {
      await expect(fetcher.fetch({ url: redirectTo(`http://127.0.0.1:${b.port}/`, status), method: 'POST', body: 'x' })).rejects.toThrow(
        'The URL address is not allowed',
      );
    }
    expect(b.seen).toHaveLength(0);
  });

  it('follows relative redirect chains within allowed targets', async () => {
    const res = await fetcher.fetch({ url: `http://127.0.0.1:${A}/chain/5` });
    expect(res.status).toBe(200);
    expect(res.url).toBe(`http://127.0.0.1:${A}/chain/0`);
    expect(JSON.parse(res.body.toString()).path).toBe('/chain/0');
  });

  it('follows an absolute redirect to another allowed name, re-resolving it', async () => {
    const before = resolver.calls.length;
    const res = await fetcher.fetch({ url: redirectTo(`http://alias.test:${A}/landing`) });
    expect(res.url).toBe(`http://alias.test:${A}/landing`);
    expect(JSON.parse(res.body.toString()).headers.host).toBe(`alias.test:${A}`);
    expect(resolver.calls.slice(before)).toEqual(['alias.test']);
  });

  it('refuses too many redirects (default 5, configurable per request)', async () => {
    await expect(fetcher.fetch({ url: `http://127.0.0.1:${A}/chain/6` })).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
      message: 'too many redirects (more than 5)',
    });
    await expect(fetcher.fetch({ url: `http://127.0.0.1:${A}/chain/3`, maxRedirects: 2 })).rejects.toThrow(
      'too many redirects (more than 2)',
    );
    await expect(fetcher.fetch({ url: `http://127.0.0.1:${A}/chain/1`, maxRedirects: 0 })).rejects.toThrow(
      'too many redirects (more than 0)',
    );
    await expect(fetcher.fetch({ url: `http://127.0.0.1:${A}/loop` })).rejects.toThrow(/too many redirects/);
    await expect(fetcher.fetch({ url: `http://127.0.0.1:${A}/chain/8`, maxRedirects: 8 })).resolves.toMatchObject({
      status: 200,
    });
  });

  it('turns POST into GET on 303 and keeps it on 307', async () => {
    const see = await fetcher.fetch({ url: redirectTo('/landing', 303), method: 'POST', body: 'payload' });
    expect(JSON.parse(see.body.toString())).toMatchObject({ method: 'GET', body: '' });
    const keep = await fetcher.fetch({ url: redirectTo('/landing', 307), method: 'POST', body: 'payload' });
    expect(JSON.parse(keep.body.toString())).toMatchObject({ method: 'POST', body: 'payload' });
  });

  it('drops credentials on a redirect to another origin only', async () => {
    const headers = { Authorization: 'Bearer secret', Cookie: 'sid=1', 'X-Keep': 'yes' };
    const same = await fetcher.fetch({ url: redirectTo('/landing'), headers });
    expect(JSON.parse(same.body.toString()).headers).toMatchObject({ authorization: 'Bearer secret', cookie: 'sid=1' });
    const cross = await fetcher.fetch({ url: redirectTo(`http://alias.test:${A}/landing`), headers });
    const seen = JSON.parse(cross.body.toString()).headers;
    expect(seen.authorization).toBeUndefined();
    expect(seen.cookie).toBeUndefined();
    expect(seen['x-keep']).toBe('yes');
  });

  it('returns a redirect response without Location as it is', async () => {
    const res = await fetcher.fetch({ url: redirectTo('') });
    expect(res.status).toBe(302);
  });
});

describe('SsrfGuardedFetcher: DNS rebinding', () => {
  let a: FixtureServer;
  beforeAll(async () => {
    a = await startServer((req, res) => {
      if (req.url === '/bounce') res.writeHead(302, { Location: '/after-bounce' }).end();
      else res.end(`host=${req.headers.host}`);
    });
  });
  afterAll(() => a.close());

  /** First answer: the allowed fixture. Every later answer: an internal address. */
  const rebinding = () => fakeResolver({ 'rebind.test': (call) => v4(call === 1 ? '127.0.0.1' : '10.0.0.1') });

  it('connects to the address it validated, without a second lookup', async () => {
    const resolver = rebinding();
    const fetcher = new SsrfGuardedFetcher({ allow: [`127.0.0.1:${a.port}`], lookup: resolver.lookup });
    const res = await fetcher.fetch({ url: `http://rebind.test:${a.port}/` });
    // rebind.test exists only in the fake resolver: the connection can only have gone to the pinned
    // 127.0.0.1, and the resolver was asked exactly once (a later answer would have been 10.0.0.1).
    expect(res.body.toString()).toBe(`host=rebind.test:${a.port}`);
    expect(resolver.calls).toEqual(['rebind.test']);
  });

  it('re-resolves every redirect hop and refuses when the name now points inside', async () => {
    const resolver = rebinding();
    const fetcher = new SsrfGuardedFetcher({ allow: [`127.0.0.1:${a.port}`], lookup: resolver.lookup });
    const before = a.seen.length;
    const error = (await fetcher.fetch({ url: `http://rebind.test:${a.port}/bounce` }).catch((e: unknown) => e)) as { reason: unknown };
    expect(error).toMatchObject({ code: 'UNSUPPORTED_URL', message: 'The URL address is not allowed' });
    expect(error.reason).toMatchObject({ address: '10.0.0.1', range: 'private' });
    expect(resolver.calls).toEqual(['rebind.test', 'rebind.test']);
    expect(a.seen.slice(before).map((s) => s.url)).toEqual(['/bounce']);
  });
});

/** Reads the server_name extension from a TLS ClientHello record. */
function sniOf(hello: Buffer): string | null {
  let p = 5 + 4 + 2 + 32; // record header, handshake header, version, random
  p += 1 + hello[p]; // session id
  p += 2 + hello.readUInt16BE(p); // cipher suites
  p += 1 + hello[p]; // compression methods
  const end = p + 2 + hello.readUInt16BE(p);
  for (p += 2; p + 4 <= end; p += 4 + hello.readUInt16BE(p + 2)) {
    if (hello.readUInt16BE(p) === 0) return hello.subarray(p + 9, p + 9 + hello.readUInt16BE(p + 7)).toString();
  }
  return null;
}

describe('SsrfGuardedFetcher: https to a pinned address', () => {
  it('sends the URL host as SNI while connecting to the validated address', async () => {
    const hellos: Buffer[] = [];
    const server = net.createServer((socket) => {
      let buffered = Buffer.alloc(0);
      socket.on('data', (chunk: Buffer) => {
        buffered = Buffer.concat([buffered, chunk]);
        if (buffered.length >= 5 && buffered.length >= 5 + buffered.readUInt16BE(3)) {
          hellos.push(buffered);
          socket.destroy();
        }
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const resolver = fakeResolver({ 'sni.test': v4('127.0.0.1') });
    const fetcher = new SsrfGuardedFetcher({ allow: [`127.0.0.1:${port}`], lookup: resolver.lookup });
    try {
      await expect(fetcher.fetch({ url: `https://sni.test:${port}/` })).rejects.toMatchObject({
        code: 'UPSTREAM_FAILED',
      });
      expect(hellos).toHaveLength(1);
      expect(hellos[0][0]).toBe(0x16); // a TLS handshake record
      expect(sniOf(hellos[0])).toBe('sni.test');
      expect(resolver.calls).toEqual(['sni.test']);
    } finally {
      server.close();
    }
  });

  const openssl = (() => {
    try {
      execFileSync('openssl', ['version'], { stdio: 'ignore' });
      return true;
    } catch {
      return false;
    }
  })();

  (openssl ? it : it.skip)('keeps certificate verification on (a self-signed certificate for the right name is refused)', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'outbound-tls-'));
    const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:prime256v1',
        '-nodes',
        '-keyout',
        key,
        '-out',
        cert,
        '-days',
        '1',
        '-subj',
        '/CN=tls.test',
        '-addext',
        'subjectAltName=DNS:tls.test',
      ],
      { stdio: 'ignore' },
    );
    const names: string[] = [];
    const server = https.createServer({ key: fs.readFileSync(key), cert: fs.readFileSync(cert) }, (_req, res) =>
      res.end('should not be reached'),
    );
    server.on('secureConnection', () => names.push('secure'));
    server.on('tlsClientError', () => names.push('client-rejected'));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const fetcher = new SsrfGuardedFetcher({
      allow: [`127.0.0.1:${port}`],
      lookup: fakeResolver({ 'tls.test': v4('127.0.0.1') }).lookup,
    });
    try {
      await expect(fetcher.fetch({ url: `https://tls.test:${port}/` })).rejects.toMatchObject({
        code: 'UPSTREAM_FAILED',
        message: expect.stringMatching(/self[- ]signed/i),
      });
    } finally {
      server.closeAllConnections();
      server.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
