import type { ServerResponse } from 'node:http';

import { codeForStatus } from '../core/shared/status-codes';
import { ERROR_CSP, SECURITY_HEADERS } from './security-headers';

/** Every gateway error is JSON `{error, message, code}` (DECISIONS "Error body") with the security headers. */
export function sendError(
  res: ServerResponse,
  status: number,
  error: string,
  message: string,
  headers: Record<string, string | number> = {},
): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const code = error === 'Missing or invalid authorization header' ? 'MISSING_AUTHORIZATION' : codeForStatus(status);
  const body = JSON.stringify({ error, message, code });
  for (const [name, value] of SECURITY_HEADERS) res.setHeader(name, value);
  res.setHeader('content-security-policy', ERROR_CSP);
  res.writeHead(status, {
    ...headers,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
  });
  res.end(body);
}
