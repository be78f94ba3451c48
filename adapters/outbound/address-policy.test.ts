import { classifyAddress, classifyHost, isPublicAddress, parseLooseIPv4 } from './address-policy';

describe('address policy: IPv4 notations', () => {
  it.each([
    ['127.0.0.1', '127.0.0.1'],
    ['127.1', '127.0.0.1'],
    ['127.0.1', '127.0.0.1'],
    ['10.1', '10.0.0.1'],
    ['2130706433', '127.0.0.1'],
    ['017700000001', '127.0.0.1'],
    ['0177.0.0.1', '127.0.0.1'],
    ['0177.1', '127.0.0.1'],
    ['0x7f.0.0.1', '127.0.0.1'],
    ['0x7F000001', '127.0.0.1'],
    ['0x7f.1', '127.0.0.1'],
    ['0x7f.0.0x0.01', '127.0.0.1'],
    ['0300.0250.0x1.1', '192.168.1.1'],
    ['3232235777', '192.168.1.1'],
    ['127.0.0.1.', '127.0.0.1'],
    ['0', '0.0.0.0'],
    ['0x', '0.0.0.0'],
    ['8.8.8.8', '8.8.8.8'],
  ])('parses %s as %s', (text, dotted) => {
    expect(parseLooseIPv4(text)).toBe(dotted);
  });

  it.each(['256.0.0.1', '1.2.3.4.5', '08.1.1.1', '0x1g.1', '4294967296', '1.16777216', 'example.com', ''])(
    'does not take %j as an IPv4 address',
    (text) => {
      expect(parseLooseIPv4(text)).toBeNull();
    },
  );

  it('refuses a host that ends in a number but is not a valid address, instead of resolving it', () => {
    expect(classifyHost('08.1.1.1')).toEqual({ kind: 'refused', reason: 'malformed IPv4 address' });
    expect(classifyHost('1.2.3.4.5')).toEqual({ kind: 'refused', reason: 'malformed IPv4 address' });
    expect(classifyHost('0x7f.0.0.1x')).toEqual({ kind: 'name', name: '0x7f.0.0.1x' });
  });
});

describe('address policy: refused ranges', () => {
  it.each([
    ['127.0.0.1', 'loopback'],
    ['0177.0.0.1', 'loopback'],
    ['2130706433', 'loopback'],
    ['0x7f000001', 'loopback'],
    ['0.0.0.0', 'unspecified'],
    ['0', 'unspecified'],
    ['10.0.0.1', 'private'],
    ['10.1', 'private'],
    ['172.16.0.1', 'private'],
    ['172.31.255.255', 'private'],
    ['192.168.0.1', 'private'],
    ['169.254.169.254', 'linkLocal'],
    ['100.64.0.1', 'carrierGradeNat'],
    ['100.127.255.254', 'carrierGradeNat'],
    ['192.0.0.8', 'reserved'],
    ['192.0.2.1', 'documentation'],
    ['198.51.100.7', 'documentation'],
    ['203.0.113.9', 'documentation'],
    ['198.18.0.1', 'benchmarking'],
    ['198.19.255.255', 'benchmarking'],
    ['192.88.99.1', 'reserved'],
    ['224.0.0.1', 'multicast'],
    ['239.255.255.250', 'multicast'],
    ['240.0.0.1', 'reserved'],
    ['255.255.255.255', 'broadcast'],
    ['::1', 'loopback'],
    ['[::1]', 'loopback'],
    ['0:0:0:0:0:0:0:1', 'loopback'],
    ['::', 'unspecified'],
    ['[::]', 'unspecified'],
    ['fe80::1', 'linkLocal'],
    ['febf::1', 'linkLocal'],
    ['fe80::1%eth0', 'scoped'],
    ['fe80::1%25eth0', 'scoped'],
    ['[fe80::1%25eth0]', 'scoped'],
    ['2606:4700::1111%eth0', 'scoped'],
    ['fc00::1', 'uniqueLocal'],
    ['fd00::1', 'uniqueLocal'],
    ['fec0::1', 'siteLocal'],
    ['ff02::1', 'multicast'],
    ['ff0e::1', 'multicast'],
    ['::ffff:127.0.0.1', 'loopback'],
    ['::ffff:7f00:1', 'loopback'],
    ['::ffff:a9fe:a9fe', 'linkLocal'],
    ['::ffff:10.0.0.1', 'private'],
    ['::127.0.0.1', 'ipv4Compatible'],
    ['::7f00:1', 'ipv4Compatible'],
    ['::8.8.8.8', 'ipv4Compatible'],
    ['::ffff:0:7f00:1', 'ipv4Translated'],
    ['64:ff9b::127.0.0.1', 'nat64(loopback)'],
    ['64:ff9b::7f00:1', 'nat64(loopback)'],
    ['64:ff9b::a9fe:a9fe', 'nat64(linkLocal)'],
    ['64:ff9b::c0a8:101', 'nat64(private)'],
    ['64:ff9b:1::a00:1', 'nat64LocalUse'],
    ['64:ff9b:1:7f00:1::', 'nat64LocalUse'],
    ['2002:7f00:1::', '6to4(loopback)'],
    ['2002:c0a8:101::1', '6to4(private)'],
    ['2002:a9fe:a9fe::', '6to4(linkLocal)'],
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', 'teredo'],
    ['2001:2::1', 'reserved'],
    ['2001:db8::1', 'documentation'],
    ['3fff::1', 'documentation'],
    ['100::1', 'discard'],
    ['5f00::1', 'reserved'],
    ['::2', 'ipv4Compatible'],
  ])('refuses %s (%s)', (text, range) => {
    const verdict = classifyAddress(text);
    expect(verdict).toMatchObject({ allowed: false, range });
    expect(isPublicAddress(text)).toBe(false);
  });

  it('collapses IPv4-mapped addresses to the IPv4 address that a socket would reach', () => {
    expect(classifyAddress('::ffff:127.0.0.1')).toEqual({
      allowed: false,
      address: '127.0.0.1',
      family: 4,
      range: 'loopback',
    });
  });

  it.each(['', 'example.com', 'not an ip', '[::1', '1:2:3', '::ffff:999.0.0.1'])('refuses unparseable %j', (text) => {
    expect(classifyAddress(text).allowed).toBe(false);
  });
});

describe('address policy: public addresses', () => {
  it.each([
    ['8.8.8.8', '8.8.8.8', 4],
    ['1.1.1.1', '1.1.1.1', 4],
    ['93.184.216.34', '93.184.216.34', 4],
    ['172.32.0.1', '172.32.0.1', 4],
    ['100.128.0.1', '100.128.0.1', 4],
    ['0x08080808', '8.8.8.8', 4],
    ['2606:4700::1111', '2606:4700::1111', 6],
    ['[2606:4700:4700::1111]', '2606:4700:4700::1111', 6],
    ['2001:4860:4860::8888', '2001:4860:4860::8888', 6],
    ['2a00:1450:4001:80b::200e', '2a00:1450:4001:80b::200e', 6],
    ['::ffff:8.8.8.8', '8.8.8.8', 4],
    ['64:ff9b::808:808', '64:ff9b::808:808', 6],
    ['2002:808:808::1', '2002:808:808::1', 6],
  ])('allows %s', (text, address, family) => {
    expect(classifyAddress(text)).toEqual({ allowed: true, address, family, range: 'public' });
  });
});

describe('address policy: hosts', () => {
  it.each(['localhost', 'LOCALHOST', 'localhost.', 'app.localhost', 'a.b.localhost.'])('refuses %s by name', (host) => {
    expect(classifyHost(host)).toEqual({ kind: 'refused', reason: 'localhost' });
  });

  it.each(['example.com', 'example.com.', 'xn--bcher-kva.example', 'localhost.example.com'])('leaves %s to the resolver', (host) => {
    expect(classifyHost(host).kind).toBe('name');
  });

  it.each(['', '.', 'a..b', 'a b', 'a/b', 'a@b'])('refuses malformed name %j', (host) => {
    expect(classifyHost(host).kind).toBe('refused');
  });
});
