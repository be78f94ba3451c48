/**
 * The `code` every error body carries (docs/contracts.md "Error body") when no domain error names one: refusals made
 * before any use case runs (gateway, body parser, router) get the code of their status.
 */
const CODE_BY_STATUS: Record<number, string> = {
  400: 'VALIDATION',
  401: 'AUTHENTICATION_FAILED',
  402: 'INSUFFICIENT_CREDITS',
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  409: 'CONFLICT',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
  429: 'RATE_LIMITED',
  431: 'HEADERS_TOO_LARGE',
  500: 'INTERNAL',
  502: 'UPSTREAM_FAILED',
  503: 'SERVICE_UNAVAILABLE',
};

export function codeForStatus(status: number): string {
  return CODE_BY_STATUS[status] ?? (status >= 500 ? 'INTERNAL' : 'VALIDATION');
}
