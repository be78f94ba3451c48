import type { Response } from 'express';

/** Statuses whose answer has no body, or whose body express rewrites: these keep going through res.json. */
const BODILESS = new Set([204, 205, 304]);

/**
 * Answers `body` as JSON, byte for byte what `res.status(status).json(body)` sends for a plain result (same
 * content type with charset, same length, no ETag as the app disables them), without the generic path of
 * res.send (type sniffing, charset parsing, freshness check): on a cheap GET that path costs about as much as the
 * handler. A response that already has a content type, or whose status has no body, is left to express.
 */
export function sendJson(res: Response, status: number, body: unknown): void {
  if (BODILESS.has(status) || res.getHeader('content-type') !== undefined) return void res.status(status).json(body);
  const text = JSON.stringify(body) ?? '';
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  res.setHeader('Content-Length', Buffer.byteLength(text));
  res.end(text); // node drops the body of an answer to HEAD, as express does
}
