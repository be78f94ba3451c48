import type { OutboundResponse } from '../../../core/ports/outbound-fetcher';
import { DomainError } from '../../../core/shared/errors';
import type { SourceContext } from '../../../core/sources/source-plugin';
import { unsupported } from './url';

export const HTML_ACCEPT = 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.5';
export const FEED_ACCEPT = 'application/rss+xml,application/atom+xml,application/xml;q=0.9,text/xml;q=0.9,*/*;q=0.5';

export interface Fetched {
  status: number;
  /** Final URL after redirects. */
  url: string;
  contentType: string;
  body: Buffer;
  text: string;
}

/** GET through the context's fetcher with its bounds; returns any status (the caller decides). */
export async function get(ctx: SourceContext, url: string, accept = HTML_ACCEPT): Promise<Fetched> {
  const res: OutboundResponse = await ctx.fetcher.fetch({
    url,
    method: 'GET',
    headers: { accept, 'accept-language': 'en;q=0.9,*;q=0.5' },
    timeoutMs: ctx.requestTimeoutMs,
    maxBytes: ctx.maxResponseBytes,
  });
  const contentType = (res.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  return { status: res.status, url: res.url, contentType, body: res.body, text: decode(res) };
}

function decode(res: OutboundResponse): string {
  const charset = /charset=([^;]+)/i
    .exec(res.headers['content-type'] ?? '')?.[1]
    ?.trim()
    .toLowerCase();
  const label = charset && ['latin1', 'iso-8859-1', 'windows-1252', 'us-ascii'].includes(charset) ? 'latin1' : 'utf8';
  const text = res.body.toString(label);
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/** The error for a non-2xx answer: gone or private pages are unreadable (400), server trouble is upstream (502). */
export function statusError(fetched: { status: number; url: string }, what = 'The page'): DomainError {
  const { status, url } = fetched;
  if (status === 404 || status === 410) return unsupported(`${what} was not found (HTTP ${status})`, { url, status });
  if (status === 401 || status === 403 || status === 999) return unsupported(`${what} is not public (HTTP ${status})`, { url, status });
  if (status === 429)
    return new DomainError('UPSTREAM_FAILED', `${what} is rate-limiting requests (HTTP 429); try again later`, { url, status });
  return new DomainError('UPSTREAM_FAILED', `${what} answered HTTP ${status}`, { url, status });
}

/** GET that must answer 2xx. */
export async function getOk(ctx: SourceContext, url: string, accept = HTML_ACCEPT, what?: string): Promise<Fetched> {
  const fetched = await get(ctx, url, accept);
  if (fetched.status < 200 || fetched.status > 299) throw statusError(fetched, what);
  return fetched;
}

export const isHtml = (contentType: string, text: string) =>
  contentType === 'text/html' || contentType === 'application/xhtml+xml' || (!contentType && /^\s*(<!doctype html|<html)/i.test(text));

export const isXml = (contentType: string, text: string) =>
  /(^|\/|\+)xml$/.test(contentType) || /^\s*<\?xml|^\s*<(rss|feed|rdf:RDF)[\s>]/i.test(text);
