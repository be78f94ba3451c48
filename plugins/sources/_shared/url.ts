import { DomainError } from '../../../core/shared/errors';

const TRACKING_PARAMS = /^(utm_[a-z]+|fbclid|gclid|mc_cid|mc_eid|ref_src|igshid|si)$/i;

export const unsupported = (message: string, details?: unknown) => new DomainError('UNSUPPORTED_URL', message, details);

/** Parses an http(s) URL or throws UNSUPPORTED_URL. A bare host (`example.com/x`) gets https://. */
export function parseHttpUrl(input: string): URL {
  const text = input.trim();
  let url: URL;
  try {
    url = new URL(/^[a-z][a-z0-9+.-]*:/i.test(text) ? text : `https://${text}`);
  } catch {
    throw unsupported('The URL is malformed', { url: input });
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    throw unsupported(`Only http and https URLs are supported, not ${url.protocol}`, { url: input });
  if (!url.hostname) throw unsupported('The URL has no host', { url: input });
  if (url.username || url.password) throw unsupported('The URL must not embed credentials', { url: url.origin });
  return url;
}

/**
 * The canonical form of a page URL: lower-case host, no fragment, no tracking parameters, no trailing
 * slash (except the root), default ports dropped (the URL class does that).
 */
export function canonicalUrl(input: string | URL): string {
  const url = typeof input === 'string' ? parseHttpUrl(input) : new URL(input.href);
  url.hash = '';
  url.hostname = url.hostname.toLowerCase();
  for (const key of [...url.searchParams.keys()]) if (TRACKING_PARAMS.test(key)) url.searchParams.delete(key);
  if (url.pathname.length > 1) url.pathname = url.pathname.replace(/\/+$/, '') || '/';
  return url.href.replace(/\?$/, '');
}

/** Host without a leading `www.` (same site for crawling). */
export const bareHost = (url: URL) => url.hostname.toLowerCase().replace(/^www\./, '');

export const sameSite = (a: URL, b: URL) => bareHost(a) === bareHost(b) && a.port === b.port;

/** True when the host is `domain` or one of its subdomains. */
export const hostIs = (url: URL, domain: string) => {
  const host = url.hostname.toLowerCase();
  return host === domain || host.endsWith(`.${domain}`);
};

/** Links to files that are not pages. */
const NOT_A_PAGE =
  /\.(pdf|jpe?g|png|gif|webp|svg|ico|bmp|avif|zip|gz|tar|rar|7z|mp3|wav|m4a|ogg|mp4|webm|mov|avi|css|js|mjs|json|xml|rss|atom|txt|csv|docx?|xlsx?|pptx?|woff2?|ttf|eot|dmg|exe)$/i;

export const looksLikePage = (url: URL) => !NOT_A_PAGE.test(url.pathname);

/** Resolves `href` against `base` into a canonical http(s) URL, or null. */
export function resolveLink(href: string | undefined, base: string): string | null {
  if (!href || /^(mailto|tel|javascript|data):/i.test(href.trim()) || href.trim().startsWith('#')) return null;
  try {
    const url = new URL(href.trim(), base);
    if (url.protocol !== 'http:' && url.protocol !== 'https:') return null;
    return canonicalUrl(url);
  } catch {
    return null;
  }
}
