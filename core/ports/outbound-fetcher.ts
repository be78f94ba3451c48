export interface OutboundRequest {
  url: string;
  method?: 'GET' | 'POST' | 'HEAD';
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
  maxBytes?: number;
  maxRedirects?: number;
}

export interface OutboundResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
  /** URL after redirects. */
  url: string;
}

/**
 * Every fetch of a user-supplied URL goes through this port. The default adapter refuses internal
 * addresses (SSRF guard) and bounds size and time. Fails with DomainError UNSUPPORTED_URL for refused
 * targets and UPSTREAM_FAILED for network errors and timeouts.
 */
export interface OutboundFetcher {
  fetch(request: OutboundRequest): Promise<OutboundResponse>;
}
export const OUTBOUND_FETCHER = Symbol.for('OutboundFetcher');
