import { DomainError } from '../../core/shared/errors';
import { SsrfGuardedFetcher } from './ssrf-guarded.fetcher';
import { fakeResolver, type FixtureServer, startServer, v4, v6 } from './test-fixtures';

/**
 * Bypass attempts against the default policy (nothing allowed). A live "victim" server listens on
 * 127.0.0.1:P and every attempt that can aim at it does, so a hole in the guard shows up as a
 * successful fetch and a hit on the victim rather than as a connection error.
 */
describe('SsrfGuardedFetcher refuses internal targets', () => {
  let victim: FixtureServer;
  let P: number;
  const resolver = fakeResolver({
    'loopback.test': v4('127.0.0.1'),
    'internal.test': v4('10.0.0.1'),
    'metadata.test': v4('169.254.169.254'),
    'cgnat.test': v4('100.64.0.1'),
    'zero.test': v4('0.0.0.0'),
    'bench.test': v4('198.18.0.1'),
    'aaaa-loopback.test': v6('::1'),
    'aaaa-ula.test': v6('fd00::1'),
    'aaaa-linklocal.test': v6('fe80::1'),
    'mixed.test': [
      { address: '93.184.216.34', family: 4 },
      { address: '127.0.0.1', family: 4 },
    ],
    'mixed-order.test': [
      { address: '127.0.0.1', family: 4 },
      { address: '93.184.216.34', family: 4 },
    ],
    'mixed6.test': [
      { address: '2606:4700::1111', family: 6 },
      { address: 'fd12:3456::1', family: 6 },
    ],
    'mixed-family.test': [
      { address: '8.8.8.8', family: 4 },
      { address: '::1', family: 6 },
    ],
    'mapped.test': v6('::ffff:127.0.0.1'),
    'nat64.test': v6('64:ff9b::a00:1'),
    'sixtofour.test': v6('2002:c0a8:101::1'),
    'teredo.test': v6('2001:0:4136:e378:8000:63bf:3fff:fdd2'),
    'octal-answer.test': v4('0177.0.0.1'),
    'decimal-answer.test': v4('2130706433'),
    'garbage-answer.test': v4('not-an-address'),
  });
  const fetcher = new SsrfGuardedFetcher({ lookup: resolver.lookup, defaultTimeoutMs: 2000 });

  beforeAll(async () => {
    victim = await startServer((_req, res) => res.end('secret'));
    P = victim.port;
  });
  afterAll(() => victim.close());

  const attempts: [string, (port: number) => string][] = [
    ['plain loopback', (p) => `http://127.0.0.1:${p}/`],
    ['https loopback', (p) => `https://127.0.0.1:${p}/`],
    ['upper-case scheme', (p) => `HTTP://127.0.0.1:${p}/`],
    ['short 127.1', (p) => `http://127.1:${p}/`],
    ['short 127.0.1', (p) => `http://127.0.1:${p}/`],
    ['short private 10.1', () => 'http://10.1/'],
    ['decimal integer', (p) => `http://2130706433:${p}/`],
    ['decimal 192.168.1.1', () => 'http://3232235777/'],
    ['octal integer', (p) => `http://017700000001:${p}/`],
    ['octal dotted', (p) => `http://0177.0.0.1:${p}/`],
    ['octal short', (p) => `http://0177.1:${p}/`],
    ['octal private', () => 'http://0300.0250.1.1/'],
    ['hex dotted', (p) => `http://0x7f.0.0.1:${p}/`],
    ['hex integer', (p) => `http://0x7f000001:${p}/`],
    ['hex short', (p) => `http://0x7f.1:${p}/`],
    ['mixed hex/octal/decimal', (p) => `http://0x7F.0.00.1:${p}/`],
    ['trailing dot', (p) => `http://127.0.0.1.:${p}/`],
    ['percent-encoded digits', (p) => `http://%31%32%37.0.0.1:${p}/`],
    ['full-width digits and dots', (p) => `http://１２７．０．０．１:${p}/`],
    ['ideographic dots', (p) => `http://127。0。0。1:${p}/`],
    ['zero', (p) => `http://0:${p}/`],
    ['0.0.0.0', (p) => `http://0.0.0.0:${p}/`],
    ['localhost', (p) => `http://localhost:${p}/`],
    ['LOCALHOST. with trailing dot', (p) => `http://LOCALHOST.:${p}/`],
    ['*.localhost', (p) => `http://app.localhost:${p}/`],
    ['IPv6 loopback', (p) => `http://[::1]:${p}/`],
    ['IPv6 loopback, long form', (p) => `http://[0:0:0:0:0:0:0:1]:${p}/`],
    ['IPv6 unspecified', (p) => `http://[::]:${p}/`],
    ['IPv4-mapped dotted', (p) => `http://[::ffff:127.0.0.1]:${p}/`],
    ['IPv4-mapped hex', (p) => `http://[::ffff:7f00:1]:${p}/`],
    ['IPv4-mapped metadata', () => 'http://[::ffff:169.254.169.254]/'],
    ['IPv4-compatible', (p) => `http://[::127.0.0.1]:${p}/`],
    ['NAT64 loopback', (p) => `http://[64:ff9b::127.0.0.1]:${p}/`],
    ['NAT64 metadata', () => 'http://[64:ff9b::a9fe:a9fe]/'],
    ['NAT64 local-use prefix', () => 'http://[64:ff9b:1::a00:1]/'],
    ['6to4 loopback', (p) => `http://[2002:7f00:1::1]:${p}/`],
    ['6to4 private', () => 'http://[2002:a00:1::]/'],
    ['Teredo', () => 'http://[2001:0:4136:e378:8000:63bf:3fff:fdd2]/'],
    ['IPv6 link-local', () => 'http://[fe80::1]/'],
    ['IPv6 zone id', () => 'http://[fe80::1%25eth0]/'],
    ['IPv6 unique-local fc00', () => 'http://[fc00::1]/'],
    ['IPv6 unique-local fd00', () => 'http://[fd00::1]/'],
    ['IPv6 site-local', () => 'http://[fec0::1]/'],
    ['IPv6 multicast', () => 'http://[ff02::1]/'],
    ['private 10/8', () => 'http://10.0.0.1/'],
    ['private 172.16/12', () => 'http://172.16.0.1/'],
    ['private 192.168/16', () => 'http://192.168.1.1/'],
    ['cloud metadata', () => 'http://169.254.169.254/latest/meta-data/'],
    ['CGNAT', () => 'http://100.64.0.1/'],
    ['benchmarking', () => 'http://198.18.0.1/'],
    ['TEST-NET-1', () => 'http://192.0.2.1/'],
    ['TEST-NET-3', () => 'http://203.0.113.1/'],
    ['broadcast', () => 'http://255.255.255.255/'],
    ['multicast', () => 'http://224.0.0.1/'],
    ['reserved 240/4', () => 'http://240.0.0.1/'],
    ['name resolving to loopback', (p) => `http://loopback.test:${p}/`],
    ['name resolving to private', () => 'http://internal.test/'],
    ['name resolving to metadata', () => 'http://metadata.test/'],
    ['name resolving to CGNAT', () => 'http://cgnat.test/'],
    ['name resolving to 0.0.0.0', (p) => `http://zero.test:${p}/`],
    // grown with issue 8
    ['credentials before a loopback host', (p) => `http://user:pass@127.0.0.1:${p}/`],
    ['public-looking credentials, loopback host', (p) => `http://example.com@127.0.0.1:${p}/`],
    ['IPv4-mapped, expanded', (p) => `http://[0:0:0:0:0:ffff:7f00:0001]:${p}/`],
    ['IPv4-translated (::ffff:0:a.b.c.d)', (p) => `http://[::ffff:0:127.0.0.1]:${p}/`],
    ['metadata, decimal', () => 'http://2852039166/latest/meta-data/'],
    ['metadata, hex', () => 'http://0xa9fea9fe/'],
    ['this-network 0.0.0.1', () => 'http://0.0.0.1/'],
    ['name resolving to benchmarking', () => 'http://bench.test/'],
    ['AAAA-only ::1', (p) => `http://aaaa-loopback.test:${p}/`],
    ['AAAA-only fd00::1', () => 'http://aaaa-ula.test/'],
    ['AAAA-only fe80::1', () => 'http://aaaa-linklocal.test/'],
    ['mixed public then private', (p) => `http://mixed.test:${p}/`],
    ['mixed private then public', (p) => `http://mixed-order.test:${p}/`],
    ['mixed public and unique-local IPv6', () => 'http://mixed6.test/'],
    ['public A and loopback AAAA', (p) => `http://mixed-family.test:${p}/`],
    ['name resolving to IPv4-mapped loopback', (p) => `http://mapped.test:${p}/`],
    ['name resolving to NAT64 private', () => 'http://nat64.test/'],
    ['name resolving to 6to4 private', () => 'http://sixtofour.test/'],
    ['name resolving to Teredo', () => 'http://teredo.test/'],
    ['resolver answering in octal', (p) => `http://octal-answer.test:${p}/`],
    ['resolver answering a decimal integer', (p) => `http://decimal-answer.test:${p}/`],
    ['resolver answering garbage', (p) => `http://garbage-answer.test:${p}/`],
    ['userinfo before internal host', (p) => `http://example.com@127.0.0.1:${p}/`],
    ['userinfo with password', (p) => `http://example.com:80@127.0.0.1:${p}/`],
    ['backslash before @', (p) => `http://127.0.0.1:${p}\\@example.com/`],
    ['fragment before @', (p) => `http://127.0.0.1:${p}#@example.com/`],
    ['credentials on a public name', () => 'http://user:pass@example.com/'],
    ['file scheme', () => 'file:///etc/passwd'],
    ['gopher scheme', (p) => `gopher://127.0.0.1:${p}/_GET%20/`],
    ['ftp scheme', () => 'ftp://example.com/'],
    ['dict scheme', () => 'dict://127.0.0.1:11211/stat'],
    ['data scheme', () => 'data:text/plain,hello'],
    ['javascript scheme', () => 'javascript:alert(1)'],
    ['not a URL', () => 'not a url'],
    ['relative URL', () => '/etc/passwd'],
    ['malformed IPv4', () => 'http://08.1.1.1/'],
    ['too many IPv4 parts', () => 'http://1.2.3.4.5/'],
  ];

  it('has a table of at least 40 attempts', () => {
    expect(attempts.length).toBeGreaterThanOrEqual(40);
  });

  it.each(attempts)('refuses %s', async (_name, makeUrl) => {
    const error = await fetcher.fetch({ url: makeUrl(P) }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(DomainError);
    expect(error).toMatchObject({ code: 'UNSUPPORTED_URL' });
  });

  it('tells the caller only that the address is not allowed, and keeps the reason for logs', async () => {
    await expect(fetcher.fetch({ url: `http://0x7f.1:${P}/` })).rejects.toThrow(/^The URL address is not allowed$/);
    const error = (await fetcher.fetch({ url: 'http://mixed.test/' }).catch((e: unknown) => e)) as DomainError & { reason: unknown };
    expect(error).toMatchObject({ code: 'UNSUPPORTED_URL', message: 'The URL address is not allowed', details: undefined });
    expect(error.reason).toEqual({ host: 'mixed.test', address: '127.0.0.1', range: 'loopback' });
    // nothing of the reason reaches a serialised body
    expect(JSON.stringify({ ...error, message: error.message })).not.toMatch(/127\.0\.0\.1|loopback|mixed/);
    await expect(fetcher.fetch({ url: 'gopher://example.com/' })).rejects.toThrow(/scheme gopher: is not supported/);
  });

  it('refuses localhost by name without asking the resolver, and never resolves IP literals', () => {
    expect(resolver.calls).not.toContain('localhost');
    expect(resolver.calls.every((h) => h.endsWith('.test'))).toBe(true);
  });

  it('never let a request reach the victim server', () => {
    expect(victim.seen).toHaveLength(0);
  });
});

describe('SsrfGuardedFetcher bypass control', () => {
  it('reaches the same victim through those notations once its exact ip:port is allowed', async () => {
    const victim = await startServer((_req, res) => res.end('secret'));
    const P = victim.port;
    const resolver = fakeResolver({ 'loopback.test': v4('127.0.0.1'), 'mapped.test': v6('::ffff:7f00:1') });
    const fetcher = new SsrfGuardedFetcher({ lookup: resolver.lookup, allow: [`127.0.0.1:${P}`] });
    try {
      for (const url of [
        `http://0x7f.1:${P}/`,
        `http://2130706433:${P}/`,
        `http://0177.0.0.1:${P}/`,
        `http://[::ffff:127.0.0.1]:${P}/`,
        `http://loopback.test:${P}/`,
        `http://mapped.test:${P}/`,
      ]) {
        await expect(fetcher.fetch({ url })).resolves.toMatchObject({ status: 200, body: Buffer.from('secret') });
      }
      expect(victim.seen).toHaveLength(6);
      await expect(fetcher.fetch({ url: `http://127.0.0.2:${P}/` })).rejects.toMatchObject({ code: 'UNSUPPORTED_URL' });
      await expect(fetcher.fetch({ url: `http://127.0.0.1:${P + 1}/` })).rejects.toMatchObject({
        code: 'UNSUPPORTED_URL',
      });
      await expect(fetcher.fetch({ url: `http://[::1]:${P}/` })).rejects.toMatchObject({ code: 'UNSUPPORTED_URL' });
      await expect(fetcher.fetch({ url: `http://localhost:${P}/` })).rejects.toMatchObject({ code: 'UNSUPPORTED_URL' });
      expect(victim.seen).toHaveLength(6);
    } finally {
      await victim.close();
    }
  });
});
