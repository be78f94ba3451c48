import type { OutboundFetcher } from '../../core/ports/outbound-fetcher';
import { DomainError } from '../../core/shared/errors';

/** What openid-client (its `customFetch`) and jose (createRemoteJWKSet's `customFetch`) hand to fetch. */
export interface FetchLikeInit {
  method?: string;
  headers?: Headers | Record<string, string> | [string, string][];
  body?: unknown;
}
export type FetchLike = (url: string, init: FetchLikeInit) => Promise<Response>;

/** Answers a Response must not carry a body with (the Fetch API's null-body statuses). */
const NULL_BODY = new Set([101, 103, 204, 205, 304]);
/** Discovery documents, JWKS, token and userinfo answers are small; anything bigger is not a provider's. */
const MAX_BYTES = 1024 * 1024;

function bodyText(body: unknown): string | undefined {
  if (body === undefined || body === null) return undefined;
  if (typeof body === 'string') return body;
  if (body instanceof URLSearchParams) return body.toString();
  throw new DomainError('VALIDATION', 'identity provider request body must be a string or form');
}

/**
 * A fetch function over the SSRF-guarded OutboundFetcher, for every request of the OpenID Connect flow
 * (discovery, JWKS, token, userinfo): the provider's URLs come from an administrator's issuer and from the
 * provider's own discovery document, so none of them may reach an internal address unless SSO_ALLOWED_HOSTS
 * names it. Redirects are not followed (both libraries ask for `redirect: 'manual'`).
 */
export function guardedFetch(fetcher: OutboundFetcher, timeoutMs: number): FetchLike {
  return async (url, init) => {
    const method = (init.method ?? 'GET').toUpperCase();
    if (method !== 'GET' && method !== 'POST') throw new DomainError('VALIDATION', `identity provider request method ${method}`);
    const headers: Record<string, string> = {};
    new Headers(init.headers).forEach((value, name) => (headers[name] = value));
    const r = await fetcher.fetch({ url, method, headers, body: bodyText(init.body), timeoutMs, maxBytes: MAX_BYTES, maxRedirects: 0 });
    const responseHeaders = new Headers();
    for (const [name, value] of Object.entries(r.headers)) {
      try {
        responseHeaders.append(name, value);
      } catch {
        /* a header value fetch would not accept either */
      }
    }
    return new Response(NULL_BODY.has(r.status) ? null : new Uint8Array(r.body), { status: r.status, headers: responseHeaders });
  };
}
