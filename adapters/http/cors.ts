import type { NextFunction, Request, Response } from 'express';

/** Lanes a page on another site may call: anonymous public chat, the marketplace and the API-key API. */
const CROSS_ORIGIN_PATHS = /^\/(?:api\/public|v1|marketplace)(?:\/|$)/;
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Last-Event-ID, X-Request-Id';

/**
 * CORS for the cross-origin lanes only; the JWT lane stays same-origin (its cookie is refused cross-site by
 * the gateway). No credentials are allowed cross-origin: visitors are anonymous, /v1 sends its key itself.
 */
export function corsForPublicLanes(origins: string[]) {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (!origin || !CROSS_ORIGIN_PATHS.test(req.path) || !(any || allowed.has(origin))) {
      if (req.method === 'OPTIONS' && origin && CROSS_ORIGIN_PATHS.test(req.path)) return void res.status(204).end();
      return next();
    }
    res.setHeader('Access-Control-Allow-Origin', any ? '*' : origin);
    if (!any) res.setHeader('Vary', 'Origin');
    res.setHeader('Access-Control-Expose-Headers', 'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, Idempotent-Replayed');
    if (req.method !== 'OPTIONS') return next();
    res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
    res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
    res.setHeader('Access-Control-Max-Age', '600');
    res.status(204).end();
  };
}
