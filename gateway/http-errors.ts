import { type ServerResponse, STATUS_CODES } from 'node:http';

import { toOpenAiError } from '../core/shared/openai-error';
import { codeForStatus } from '../core/shared/status-codes';
import { ERROR_CSP, HSTS, SECURITY_HEADERS } from './security-headers';

export type SendError = (
  res: ServerResponse,
  status: number,
  error: string,
  message: string,
  headers?: Record<string, string | number>,
  /** The body's `code` when the status's own (codeForStatus) says too little (`DATABASE_UNAVAILABLE`). */
  code?: string,
) => void;

/**
 * Every gateway error is JSON `{error, message, code}` (docs/contracts.md "Error body": nothing else in the body) with the
 * security headers; the request id travels in the answer's X-Request-Id header.
 */
export const sendError: SendError = (res, status, error, message, headers = {}, code) =>
  send(res, status, headers, { error, message, code: code ?? codeOf(status, error) });

/** The same error in OpenAI's shape, for the OpenAI-compatible paths. */
export const sendOpenAiError: SendError = (res, status, error, message, headers = {}, code) =>
  send(res, status, headers, toOpenAiError(status, { message, code: code ?? codeOf(status, error) }));

function codeOf(status: number, error: string): string {
  return error === 'Missing or invalid authorization header' ? 'MISSING_AUTHORIZATION' : codeForStatus(status);
}

function send(res: ServerResponse, status: number, headers: Record<string, string | number>, payload: unknown): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  const body = JSON.stringify(payload);
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

/**
 * The bytes of a gateway error written straight to a socket, where node:http has no response object (its
 * `clientError` event: a malformed request line or header, a header block over the limit): the same
 * `{error, message, code}` body and the same security headers as `sendError` (HSTS on a TLS socket), then close.
 */
export function rawErrorResponse(status: number, error: string, message: string, tls = false): string {
  const body = JSON.stringify({ error, message, code: codeForStatus(status) });
  const headers: [string, string | number][] = [
    ...SECURITY_HEADERS,
    ...(tls ? [HSTS] : []),
    ['content-security-policy', ERROR_CSP],
    ['content-type', 'application/json; charset=utf-8'],
    ['content-length', Buffer.byteLength(body)],
    ['cache-control', 'no-store'],
    ['connection', 'close'],
  ];
  const head = headers.map(([name, value]) => `${name}: ${value}\r\n`).join('');
  return `HTTP/1.1 ${status} ${STATUS_CODES[status] ?? ''}\r\n${head}\r\n${body}`;
}
