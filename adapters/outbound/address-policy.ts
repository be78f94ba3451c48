import ipaddr from 'ipaddr.js';

/**
 * Pure classification of hosts and IP addresses for the SSRF guard. No I/O.
 *
 * The policy is an allow-list: an IPv4 address is public unless it falls in a special-purpose block;
 * an IPv6 address is public only inside global unicast 2000::/3 and outside its special blocks.
 * Addresses that embed an IPv4 address (IPv4-mapped, NAT64 64:ff9b::/96, 6to4) are judged by the
 * embedded address. Scoped addresses (with a zone id) are never public.
 */

export type AddressFamily = 4 | 6;

export interface AddressVerdict {
  allowed: boolean;
  /** Canonical address to connect to; IPv4-mapped IPv6 collapses to its IPv4 address. */
  address: string;
  family: AddressFamily;
  /** 'public' when allowed, otherwise the refused range, e.g. 'loopback', 'private', 'nat64(loopback)'. */
  range: string;
}

export type HostClass = { kind: 'ip'; verdict: AddressVerdict } | { kind: 'name'; name: string } | { kind: 'refused'; reason: string };

type Block = [name: string, cidr: string];

const IPV4_BLOCKS: Block[] = [
  ['broadcast', '255.255.255.255/32'],
  ['unspecified', '0.0.0.0/8'],
  ['private', '10.0.0.0/8'],
  ['carrierGradeNat', '100.64.0.0/10'],
  ['loopback', '127.0.0.0/8'],
  ['linkLocal', '169.254.0.0/16'],
  ['private', '172.16.0.0/12'],
  ['reserved', '192.0.0.0/24'], // IETF protocol assignments
  ['documentation', '192.0.2.0/24'],
  ['reserved', '192.88.99.0/24'], // deprecated 6to4 relay anycast
  ['private', '192.168.0.0/16'],
  ['benchmarking', '198.18.0.0/15'],
  ['documentation', '198.51.100.0/24'],
  ['documentation', '203.0.113.0/24'],
  ['multicast', '224.0.0.0/4'],
  ['reserved', '240.0.0.0/4'],
];

/** IPv6 blocks refused outright (checked after the embedded-IPv4 forms). */
const IPV6_BLOCKS: Block[] = [
  ['unspecified', '::/128'],
  ['loopback', '::1/128'],
  ['ipv4Translated', '::ffff:0:0:0/96'],
  ['ipv4Compatible', '::/96'],
  ['nat64LocalUse', '64:ff9b:1::/48'],
  ['discard', '100::/64'],
  ['teredo', '2001::/32'],
  ['reserved', '2001::/23'], // IETF protocol assignments: benchmarking 2001:2::/48, ORCHID, ...
  ['documentation', '2001:db8::/32'],
  ['documentation', '3fff::/20'],
  ['linkLocal', 'fe80::/10'],
  ['siteLocal', 'fec0::/10'],
  ['uniqueLocal', 'fc00::/7'],
  ['multicast', 'ff00::/8'],
];

const parseBlocks = <T extends ipaddr.IPv4 | ipaddr.IPv6>(blocks: Block[]) =>
  blocks.map(([name, cidr]) => ({ name, range: ipaddr.parseCIDR(cidr) as [T, number] }));

const V4 = parseBlocks<ipaddr.IPv4>(IPV4_BLOCKS);
const V6 = parseBlocks<ipaddr.IPv6>(IPV6_BLOCKS);
const GLOBAL_UNICAST = ipaddr.parseCIDR('2000::/3') as [ipaddr.IPv6, number];
const MAPPED = ipaddr.parseCIDR('::ffff:0:0/96') as [ipaddr.IPv6, number];
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96') as [ipaddr.IPv6, number];
const SIX_TO_FOUR = ipaddr.parseCIDR('2002::/16') as [ipaddr.IPv6, number];

/** One WHATWG "IPv4 number": decimal, 0x-hex or 0-prefixed octal. Null when not a number. */
function parseIPv4Number(part: string): number | null {
  if (part === '') return null;
  let digits = part;
  let radix = 10;
  if (/^0x/i.test(digits)) {
    radix = 16;
    digits = digits.slice(2);
  } else if (digits.length > 1 && digits.startsWith('0')) {
    radix = 8;
    digits = digits.slice(1);
  }
  if (digits === '') return 0;
  const valid = radix === 16 ? /^[0-9a-f]+$/i : radix === 8 ? /^[0-7]+$/ : /^[0-9]+$/;
  return valid.test(digits) ? parseInt(digits, radix) : null;
}

function dottedParts(host: string): string[] {
  const parts = host.split('.');
  if (parts.length > 1 && parts[parts.length - 1] === '') parts.pop();
  return parts;
}

/** WHATWG "ends in a number": such a host must parse as IPv4 or it is malformed. */
export function endsInNumber(host: string): boolean {
  const last = dottedParts(host).pop() ?? '';
  return /^[0-9]+$/.test(last) || parseIPv4Number(last) !== null;
}

/**
 * Parses every IPv4 notation that WHATWG URL and inet_aton accept: dotted, short (127.1, 10.1),
 * a single decimal, octal or hex integer, and per-part octal/hex mixes (0x7f.0.1, 0177.1).
 * Returns the dotted-decimal form, or null when the text is not an IPv4 address.
 */
export function parseLooseIPv4(host: string): string | null {
  const parts = dottedParts(host);
  if (parts.length === 0 || parts.length > 4) return null;
  const numbers = parts.map(parseIPv4Number);
  if (numbers.some((n) => n === null)) return null;
  const values = numbers as number[];
  const last = values.pop() as number;
  if (values.some((n) => n > 255) || last >= 256 ** (4 - values.length)) return null;
  let value = last;
  values.forEach((n, i) => (value += n * 256 ** (3 - i)));
  return [24, 16, 8, 0].map((shift) => Math.floor(value / 2 ** shift) % 256).join('.');
}

/** Parses IPv6 text (no brackets); a dotted IPv4 tail is converted here, not by ipaddr.js. */
function parseIPv6(text: string): { ip: ipaddr.IPv6; zoned: boolean } | null {
  const zoneAt = text.indexOf('%');
  const zoned = zoneAt >= 0;
  let body = zoned ? text.slice(0, zoneAt) : text;
  const tail = /^(.*:)(\d{1,3}(?:\.\d{1,3}){3})$/.exec(body);
  if (tail) {
    if (!ipaddr.IPv4.isValidFourPartDecimal(tail[2])) return null;
    const o = ipaddr.IPv4.parse(tail[2]).octets;
    body = `${tail[1]}${((o[0] << 8) | o[1]).toString(16)}:${((o[2] << 8) | o[3]).toString(16)}`;
  }
  if (!ipaddr.IPv6.isValid(body)) return null;
  return { ip: ipaddr.IPv6.parse(body), zoned };
}

const v4FromParts = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 255, lo >> 8, lo & 255]);

function classifyV4(ip: ipaddr.IPv4): AddressVerdict {
  const block = V4.find((b) => ip.match(b.range));
  const address = ip.toString();
  return block ? { allowed: false, address, family: 4, range: block.name } : { allowed: true, address, family: 4, range: 'public' };
}

function embedded(address: string, via: string, inner: AddressVerdict): AddressVerdict {
  return inner.allowed
    ? { allowed: true, address, family: 6, range: 'public' }
    : { allowed: false, address, family: 6, range: `${via}(${inner.range})` };
}

function classifyV6(ip: ipaddr.IPv6, zoned: boolean): AddressVerdict {
  const address = ip.toString();
  const p = ip.parts;
  if (zoned) return { allowed: false, address, family: 6, range: 'scoped' };
  if (ip.match(MAPPED)) return classifyV4(v4FromParts(p[6], p[7]));
  if (ip.match(NAT64)) return embedded(address, 'nat64', classifyV4(v4FromParts(p[6], p[7])));
  if (ip.match(SIX_TO_FOUR)) return embedded(address, '6to4', classifyV4(v4FromParts(p[1], p[2])));
  const block = V6.find((b) => ip.match(b.range));
  if (block) return { allowed: false, address, family: 6, range: block.name };
  if (!ip.match(GLOBAL_UNICAST)) return { allowed: false, address, family: 6, range: 'reserved' };
  return { allowed: true, address, family: 6, range: 'public' };
}

/**
 * Classifies one address in any textual form (IPv4 in any notation, IPv6 with or without
 * brackets or zone id). Text that is not an address is refused as 'unparseable'.
 */
export function classifyAddress(text: string): AddressVerdict {
  const host = classifyHost(text);
  if (host.kind === 'ip') return host.verdict;
  return { allowed: false, address: text, family: text.includes(':') ? 6 : 4, range: 'unparseable' };
}

export const isPublicAddress = (text: string): boolean => classifyAddress(text).allowed;

/**
 * Classifies a URL host (or any host text): an IP literal gets a verdict, a name must be resolved
 * and its answers classified, and malformed literals and localhost names are refused outright.
 */
export function classifyHost(input: string): HostClass {
  const host = input.trim().toLowerCase();
  if (host.startsWith('[') || host.includes(':')) {
    const bracketed = host.startsWith('[');
    if (bracketed && !host.endsWith(']')) return { kind: 'refused', reason: 'malformed IPv6 address' };
    const parsed = parseIPv6(bracketed ? host.slice(1, -1) : host);
    if (!parsed) return { kind: 'refused', reason: 'malformed IPv6 address' };
    return { kind: 'ip', verdict: classifyV6(parsed.ip, parsed.zoned) };
  }
  if (endsInNumber(host)) {
    const v4 = parseLooseIPv4(host);
    if (!v4) return { kind: 'refused', reason: 'malformed IPv4 address' };
    return { kind: 'ip', verdict: classifyV4(ipaddr.IPv4.parse(v4)) };
  }
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name === '' || name.includes('..') || /[\s/\\?#@%]/.test(name)) {
    return { kind: 'refused', reason: 'malformed host name' };
  }
  if (name === 'localhost' || name.endsWith('.localhost')) return { kind: 'refused', reason: 'localhost' };
  return { kind: 'name', name: input.trim() };
}
