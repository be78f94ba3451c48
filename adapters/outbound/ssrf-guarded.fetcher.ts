import { promises as dns } from 'node:dns';
import type { IncomingMessage } from 'node:http';
import tls from 'node:tls';

import type { OutboundFetcher, OutboundRequest, OutboundResponse } from '../../core/ports/outbound-fetcher';
import { DomainError, isDomainError } from '../../core/shared/errors';
import { type AddressVerdict, classifyAddress, classifyHost } from './address-policy';
import { discard, type PinnedTarget, readBounded, sendPinned } from './pinned-request';

export type HostLookup = (hostname: string) => Promise<{ address: string; family: 4 | 6 }[]>;

export interface SsrfFetcherOptions {
  /** Resolves a host name to every address; defaults to dns.promises.lookup(host, { all: true }). */
  lookup?: HostLookup;
  /** Test-only allowance: exact `ip:port` endpoints (`127.0.0.1:43123`, `[::1]:8080`) reachable although internal. */
  allow?: string[];
  /**
   * `host[:port]` entries (a name or an IP literal; without a port the scheme's default, 443 or 80) reached whatever
   * they resolve to: the internal identity providers SSO_ALLOWED_HOSTS names. Only the identity flow's fetcher has them.
   */
  allowHosts?: string[];
  /** Extra trusted CA certificates (PEM), added to Node's default roots for HTTPS targets. */
  extraCa?: string[];
  userAgent?: string;
  defaultTimeoutMs?: number;
  defaultMaxBytes?: number;
  defaultMaxRedirects?: number;
}

/** JSON schema (ajv) of the options that come from configuration; `lookup` is code, not config. */
export const ssrfFetcherOptionsSchema = {
  $id: 'ssrf-guarded-fetcher-options',
  type: 'object',
  additionalProperties: false,
  properties: {
    allow: {
      type: 'array',
      description: 'Test-only: exact ip:port endpoints that may be reached although internal.',
      items: { type: 'string', pattern: '^(\\[[0-9A-Fa-f:.]+\\]|[0-9.]+):[0-9]{1,5}$' },
      uniqueItems: true,
      default: [],
    },
    allowHosts: {
      type: 'array',
      description: 'host[:port] names (or IP literals) reached although internal; the identity providers of SSO_ALLOWED_HOSTS.',
      items: { type: 'string', minLength: 1, maxLength: 260 },
      uniqueItems: true,
    },
    extraCa: {
      type: 'array',
      description: 'Extra trusted CA certificates (PEM) for HTTPS targets, added to the default roots.',
      items: { type: 'string', minLength: 1 },
    },
    userAgent: { type: 'string', minLength: 1, maxLength: 256 },
    defaultTimeoutMs: { type: 'integer', minimum: 1, maximum: 600000 },
    defaultMaxBytes: { type: 'integer', minimum: 1 },
    defaultMaxRedirects: { type: 'integer', minimum: 0, maximum: 20 },
  },
} as const;

export const DEFAULT_TIMEOUT_MS = 10_000;
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 5;
const DEFAULT_USER_AGENT = 'agent-platform/0.1 (+outbound-fetcher)';
const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);
/** Headers the fetcher owns; a caller cannot set them. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'upgrade',
  'te',
  'expect',
  'proxy-connection',
  'trailer',
]);
/** Headers that must not follow a redirect to another origin. */
const CREDENTIAL_HEADERS = ['authorization', 'cookie', 'proxy-authorization'];

/** What a caller is told when an address is refused: nothing that maps internal names or ranges. */
export const ADDRESS_NOT_ALLOWED = 'The URL address is not allowed';

/**
 * Refusal of an internal or special address. The reason (host, address, range) stays on the error for logs
 * and tests as a non-enumerable `reason`; the message and body say only that the address is not allowed.
 */
function addressRefused(reason: Record<string, string>): DomainError {
  const error = new DomainError('UNSUPPORTED_URL', ADDRESS_NOT_ALLOWED);
  Object.defineProperty(error, 'reason', { value: reason, enumerable: false });
  return error;
}
const refused = (message: string, details?: unknown) => new DomainError('UNSUPPORTED_URL', message, details);
const upstream = (message: string, details?: unknown) => new DomainError('UPSTREAM_FAILED', message, details);

const defaultLookup: HostLookup = async (hostname) => {
  const answers = await dns.lookup(hostname, { all: true, verbatim: true });
  return answers.map((a) => ({ address: a.address, family: a.family === 6 ? 6 : 4 }));
};

/** Endpoint key used by the `allow` list: `1.2.3.4:80` or `[::1]:80`, addresses canonical. */
function endpointKey(verdict: AddressVerdict, port: number): string {
  return verdict.family === 6 ? `[${verdict.address}]:${port}` : `${verdict.address}:${port}`;
}

function parseAllowEntry(entry: string): string {
  const match = /^(\[[^\]]+\]|[^:]+):(\d{1,5})$/.exec(entry.trim());
  const port = match ? Number(match[2]) : 0;
  const host = match ? classifyHost(match[1]) : null;
  if (!match || host?.kind !== 'ip' || port < 1 || port > 65535) {
    throw new DomainError('VALIDATION', `invalid outbound allow entry "${entry}": expected ip:port`);
  }
  return endpointKey(host.verdict, port);
}

/** A host as `allowHosts` compares it: an IP literal in canonical form (v6 bracketed), a name lower-case without the root dot. */
function hostKey(host: string): string | null {
  const c = classifyHost(host);
  if (c.kind === 'ip') return c.verdict.family === 6 ? `[${c.verdict.address}]` : c.verdict.address;
  const name = host.trim().toLowerCase().replace(/\.$/, '');
  return name && !/[\s/\\?#@%:[\]]/.test(name) ? name : null;
}

/** `host`, `host:port`, `[v6]` or `[v6]:port` → `host:port` (default port: `*`, i.e. the scheme's default). */
function parseAllowHost(entry: string): string {
  const match = /^(\[[^\]]+\]|[^:[\]]+)(?::(\d{1,5}))?$/.exec(entry.trim());
  const host = match ? hostKey(match[1]) : null;
  const port = match?.[2] === undefined ? '*' : Number(match[2]);
  if (!match || !host || (port !== '*' && (port < 1 || port > 65535))) {
    throw new DomainError('VALIDATION', `invalid allowed host "${entry}": expected host or host:port`);
  }
  return `${host}:${port}`;
}

function positive(name: string, value: number | undefined, fallback: number, min = 1): number {
  if (value === undefined) return fallback;
  if (!Number.isInteger(value) || value < min) {
    throw new DomainError('VALIDATION', `${name} must be an integer of at least ${min}`);
  }
  return value;
}

/** Parses a URL (absolute, or relative to `base` for Location headers) and checks scheme and form. */
function parseTarget(text: string, base?: URL): URL {
  let url: URL;
  try {
    url = new URL(text, base);
  } catch {
    throw refused('URL is malformed', { url: text });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refused(`URL scheme ${url.protocol} is not supported; only http and https`, { url: url.href });
  }
  if (url.username || url.password) throw refused('URL must not embed credentials', { url: url.origin });
  if (!url.hostname) throw refused('URL has no host', { url: url.href });
  return url;
}

function flattenHeaders(res: IncomingMessage, decoded: boolean): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(res.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : value;
  }
  if (decoded) {
    delete headers['content-encoding'];
    delete headers['content-length'];
  }
  return headers;
}

/**
 * The one way to fetch a user-supplied URL. Every hop is resolved, every answer is checked against
 * the address policy, and the connection goes to the checked address (no second DNS lookup, so DNS
 * rebinding between check and connect is impossible). Redirects are followed by hand and re-checked.
 */
export class SsrfGuardedFetcher implements OutboundFetcher {
  readonly id = 'ssrf-guarded';
  static readonly optionsSchema = ssrfFetcherOptionsSchema;

  private readonly lookup: HostLookup;
  private readonly allowed: ReadonlySet<string>;
  private readonly allowedHosts: ReadonlySet<string>;
  private readonly userAgent: string;
  private readonly defaultTimeoutMs: number;
  private readonly defaultMaxBytes: number;
  private readonly defaultMaxRedirects: number;
  private readonly secureContext: tls.SecureContext | undefined;

  constructor(options: SsrfFetcherOptions = {}) {
    // `ca` replaces the trusted roots in node:tls, so extra certificates come with the default ones; the context is
    // built once (parsing every root certificate per connection would cost more than the request).
    this.secureContext = options.extraCa?.length
      ? tls.createSecureContext({ ca: [...tls.rootCertificates, ...options.extraCa] })
      : undefined;
    this.lookup = options.lookup ?? defaultLookup;
    this.allowed = new Set((options.allow ?? []).map(parseAllowEntry));
    this.allowedHosts = new Set((options.allowHosts ?? []).map(parseAllowHost));
    this.userAgent = options.userAgent ?? DEFAULT_USER_AGENT;
    this.defaultTimeoutMs = positive('defaultTimeoutMs', options.defaultTimeoutMs, DEFAULT_TIMEOUT_MS);
    this.defaultMaxBytes = positive('defaultMaxBytes', options.defaultMaxBytes, DEFAULT_MAX_BYTES);
    this.defaultMaxRedirects = positive('defaultMaxRedirects', options.defaultMaxRedirects, DEFAULT_MAX_REDIRECTS, 0);
  }

  async fetch(request: OutboundRequest): Promise<OutboundResponse> {
    const timeoutMs = positive('timeoutMs', request.timeoutMs, this.defaultTimeoutMs);
    const maxBytes = positive('maxBytes', request.maxBytes, this.defaultMaxBytes);
    const maxRedirects = positive('maxRedirects', request.maxRedirects, this.defaultMaxRedirects, 0);
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), timeoutMs);
    try {
      return await this.follow(request, controller.signal, maxBytes, maxRedirects);
    } catch (error) {
      if (controller.signal.aborted) throw upstream(`request timed out after ${timeoutMs} ms`, { timeoutMs });
      if (isDomainError(error)) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      throw upstream(`network error: ${code ? `${code} ` : ''}${(error as Error).message}`.trim(), { code });
    } finally {
      clearTimeout(timer);
    }
  }

  private async follow(request: OutboundRequest, signal: AbortSignal, maxBytes: number, maxRedirects: number) {
    let url = parseTarget(request.url);
    let method: string = request.method ?? 'GET';
    let body = request.body === undefined ? undefined : Buffer.from(request.body);
    const headers = this.requestHeaders(request.headers);
    for (let redirects = 0; ; redirects++) {
      const target = await this.resolve(url, signal);
      const res = await sendPinned({ url, target, method, headers, body, signal, secureContext: this.secureContext });
      const location = res.headers.location;
      if (!REDIRECT_STATUSES.has(res.statusCode ?? 0) || !location) {
        const read = method === 'HEAD' ? { body: Buffer.alloc(0), decoded: false } : await readBounded(res, maxBytes);
        if (method === 'HEAD') discard(res);
        return { status: res.statusCode ?? 0, headers: flattenHeaders(res, read.decoded), body: read.body, url: url.href };
      }
      discard(res);
      if (redirects >= maxRedirects) {
        throw upstream(`too many redirects (more than ${maxRedirects})`, { url: url.href, maxRedirects });
      }
      const next = parseTarget(location, url);
      const status = res.statusCode ?? 0;
      if (status === 303 || ((status === 301 || status === 302) && method === 'POST')) {
        method = method === 'HEAD' ? 'HEAD' : 'GET';
        body = undefined;
        delete headers['content-type'];
      }
      if (next.origin !== url.origin) CREDENTIAL_HEADERS.forEach((name) => delete headers[name]);
      url = next;
    }
  }

  private requestHeaders(input: Record<string, string> | undefined): Record<string, string> {
    const headers: Record<string, string> = { 'user-agent': this.userAgent, 'accept-encoding': 'gzip, br' };
    for (const [name, value] of Object.entries(input ?? {})) {
      const key = name.toLowerCase();
      if (!RESERVED_HEADERS.has(key)) headers[key] = value;
    }
    return headers;
  }

  /** Resolves the URL host and refuses unless every answer is public or an allowed endpoint. */
  private async resolve(url: URL, signal: AbortSignal): Promise<PinnedTarget> {
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : 80;
    if (this.namedExplicitly(url, port)) {
      const named = classifyHost(url.hostname);
      const [first] = named.kind === 'ip' ? [named.verdict] : await this.resolveName(url.hostname.replace(/\.$/, ''), signal);
      return { address: first.address, family: first.family, port };
    }
    const host = classifyHost(url.hostname);
    if (host.kind === 'refused') throw addressRefused({ host: url.hostname, why: host.reason });
    const verdicts = host.kind === 'ip' ? [host.verdict] : await this.resolveName(host.name, signal);
    for (const verdict of verdicts) {
      if (!verdict.allowed && !this.allowed.has(endpointKey(verdict, port))) {
        throw addressRefused({ host: url.hostname, address: verdict.address, range: verdict.range });
      }
    }
    const [first] = verdicts;
    return { address: first.address, family: first.family, port };
  }

  /** Whether `allowHosts` names this URL's host on this port (an entry without a port: the scheme's default port). */
  private namedExplicitly(url: URL, port: number): boolean {
    if (this.allowedHosts.size === 0) return false;
    const key = hostKey(url.hostname);
    if (!key) return false;
    return this.allowedHosts.has(`${key}:${port}`) || (!url.port && this.allowedHosts.has(`${key}:*`));
  }

  private async resolveName(name: string, signal: AbortSignal): Promise<AddressVerdict[]> {
    let answers: { address: string }[];
    try {
      answers = await new Promise((resolve, reject) => {
        if (signal.aborted) return reject(new Error('aborted'));
        const onAbort = () => reject(new Error('aborted'));
        signal.addEventListener('abort', onAbort, { once: true });
        this.lookup(name)
          .then(resolve, reject)
          .finally(() => signal.removeEventListener('abort', onAbort));
      });
    } catch (error) {
      if (signal.aborted) throw error;
      const code = (error as NodeJS.ErrnoException).code;
      throw upstream(`could not resolve host ${name}${code ? ` (${code})` : ''}`, { host: name, code });
    }
    if (!Array.isArray(answers) || answers.length === 0) {
      throw upstream(`could not resolve host ${name} (no addresses)`, { host: name });
    }
    return answers.map((answer) => classifyAddress(String(answer.address)));
  }
}
