import type { IncomingMessage } from 'node:http';
import { isIP } from 'node:net';

import ipaddr from 'ipaddr.js';

function normalise(raw: string): string | null {
  let s = raw.trim();
  const v = isIP(s);
  if (v === 4) return s;
  if (v === 6 && s.startsWith('::ffff:') && isIP(s.slice(7)) === 4) return s.slice(7);
  if (s.startsWith('[')) s = s.slice(1, s.indexOf(']') === -1 ? undefined : s.indexOf(']'));
  else if (/^\d{1,3}(\.\d{1,3}){3}:\d+$/.test(s)) s = s.slice(0, s.lastIndexOf(':'));
  if (isIP(s) === 0) return null;
  return ipaddr.process(s).toString();
}

/**
 * The caller's address: the socket peer, or with `trustProxy` the first hop of X-Forwarded-For
 * (only safe behind a proxy that overwrites that header). IPv4-mapped IPv6 addresses become IPv4.
 */
export function clientIp(req: IncomingMessage, trustProxy: boolean): string {
  if (trustProxy) {
    const xff = req.headers['x-forwarded-for'];
    const first = (Array.isArray(xff) ? xff[0] : xff)?.split(',')[0];
    const ip = first ? normalise(first) : null;
    if (ip) return ip;
  }
  const remote = req.socket.remoteAddress ?? '';
  return normalise(remote) ?? remote;
}

/** Rate-limit key for an address: IPv6 callers are grouped by /64, since one host usually owns a whole /64. */
export function ipRateLimitKey(ip: string): string {
  if (!ip.includes(':') || !ipaddr.IPv6.isValid(ip)) return `ip:${ip}`;
  const parts = ipaddr.IPv6.parse(ip).parts.slice(0, 4);
  return `ip6:${parts.map((p) => p.toString(16)).join(':')}::/64`;
}
