import { randomUUID } from 'node:crypto';
import type { IncomingMessage } from 'node:http';

const SAFE_ID = /^[\w.:-]{1,128}$/;

/**
 * The id that ties a request's log lines, error body and jobs together. Generated here; a caller's
 * `X-Request-Id` is kept only behind a trusted proxy (it chose the id), and only when it is a plain token.
 */
export function requestIdOf(req: IncomingMessage, trustProxy: boolean): string {
  const given = req.headers['x-request-id'];
  if (trustProxy && typeof given === 'string' && SAFE_ID.test(given)) return given;
  return randomUUID();
}
