/**
 * Headers every response of the API carries (the backend sets them with helmet; the gateway adds them to its
 * own errors and to any proxied response that lacks one). An API answers JSON: nothing may sniff, frame or
 * embed it.
 */
export const SECURITY_HEADERS: [string, string][] = [
  ['x-content-type-options', 'nosniff'],
  ['x-frame-options', 'DENY'],
  ['referrer-policy', 'no-referrer'],
  ['cross-origin-resource-policy', 'same-origin'],
  ['cross-origin-opener-policy', 'same-origin'],
  ['x-dns-prefetch-control', 'off'],
  ['x-permitted-cross-domain-policies', 'none'],
];

/** For the gateway's own JSON bodies: no content of any kind may load from them. */
export const ERROR_CSP = "default-src 'none'; frame-ancestors 'none'";

/** HSTS only where the client reached us over TLS (a plain-HTTP answer must not carry it). */
export const HSTS: [string, string] = ['strict-transport-security', 'max-age=31536000; includeSubDomains'];
