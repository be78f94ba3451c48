import type { IncomingHttpHeaders } from 'node:http';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** Lower-cased `scheme://host[:port]` of a URL, or null. */
export function originOf(value: string | undefined): string | null {
  if (!value || value === 'null') return null;
  try {
    const u = new URL(value);
    return u.protocol === 'http:' || u.protocol === 'https:' ? u.origin.toLowerCase() : null;
  } catch {
    return null;
  }
}

/**
 * Cookie-authenticated requests that change state must come from an allowed origin: the configured list,
 * or the gateway's own origin (same-origin pages). Browsers always send Origin (or at least Referer) on
 * such requests; a request with neither is refused too. Bearer requests never reach this check: a browser
 * cannot be made to attach an Authorization header cross-site.
 */
export function crossSiteRefusal(
  method: string,
  headers: IncomingHttpHeaders,
  ownOrigin: string | null,
  allowedOrigins: ReadonlySet<string>,
): string | null {
  if (SAFE_METHODS.has(method.toUpperCase())) return null;
  const referer = typeof headers.referer === 'string' ? headers.referer : undefined;
  const origin = originOf(typeof headers.origin === 'string' ? headers.origin : undefined) ?? originOf(referer);
  if (!origin) return 'A cookie-authenticated request that changes state needs an Origin header from an allowed origin';
  if (origin === ownOrigin || allowedOrigins.has(origin)) return null;
  return 'Cross-site request refused: this origin is not allowed to use the session cookie';
}
