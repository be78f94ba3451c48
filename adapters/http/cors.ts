import type { NextFunction, Request, Response } from 'express';

import { DomainError } from '../../core/shared/errors';

/** Lanes a page on another site may call: anonymous public chat, the marketplace and the API-key API. */
const CROSS_ORIGIN_PATHS = /^\/(?:api\/public|v1|marketplace)(?:\/|$)/;
/** An agent's public chat lane: its widget channels may restrict the origins (docs/contracts.md "Widget and hosted chat"). */
const AGENT_LANE = /^\/api\/public\/agents\/([^/]+)(?:\/|$)/;
const ALLOWED_HEADERS = 'Authorization, Content-Type, Idempotency-Key, Last-Event-ID, X-Request-Id';
const EXPOSED_HEADERS = 'X-Request-Id, Retry-After, RateLimit-Limit, RateLimit-Remaining, Idempotent-Replayed';

export interface AgentOriginPolicy {
  /** The origins allowed on the public lane of the agent with this slug; null: any (then CORS_ORIGINS applies). */
  originsFor(slug: string): Promise<ReadonlySet<string> | null>;
  /** The platform's own origin (its hosted chat page): always allowed. */
  ownOrigin?: () => string | null;
}

const lowerOrigin = (origin: string) => {
  try {
    return new URL(origin).origin.toLowerCase();
  } catch {
    return origin.toLowerCase();
  }
};

function allow(req: Request, res: Response, next: NextFunction, value: string): void {
  res.setHeader('Access-Control-Allow-Origin', value);
  res.setHeader('Access-Control-Expose-Headers', EXPOSED_HEADERS);
  if (req.method !== 'OPTIONS') return next();
  res.setHeader('Access-Control-Allow-Methods', 'GET, POST, PUT, PATCH, DELETE, OPTIONS');
  res.setHeader('Access-Control-Allow-Headers', ALLOWED_HEADERS);
  res.setHeader('Access-Control-Max-Age', '600');
  res.status(204).end();
}

/**
 * CORS for the cross-origin lanes only; the JWT lane stays same-origin (its cookie is refused cross-site by
 * the gateway). No credentials are allowed cross-origin: visitors are anonymous, /v1 sends its key itself.
 *
 * An agent's public lane (`/api/public/agents/:slug/...`) whose widget channels list `allowedOrigins` answers
 * only those origins (and the platform's own): another Origin gets `403 origin_not_allowed` (a preflight: 204
 * with no allow headers), whatever CORS_ORIGINS says; a request without Origin (server to server) passes.
 */
export function corsForPublicLanes(origins: string[], agents?: AgentOriginPolicy) {
  const any = origins.includes('*');
  const allowed = new Set(origins);
  const general = (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    if (!origin || !CROSS_ORIGIN_PATHS.test(req.path) || !(any || allowed.has(origin))) {
      if (req.method === 'OPTIONS' && origin && CROSS_ORIGIN_PATHS.test(req.path)) return void res.status(204).end();
      return next();
    }
    if (!any) res.setHeader('Vary', 'Origin');
    allow(req, res, next, any ? '*' : origin);
  };
  if (!agents) return general;
  return (req: Request, res: Response, next: NextFunction): void => {
    const origin = req.headers.origin;
    const lane = origin ? AGENT_LANE.exec(req.path) : null;
    if (!origin || !lane) return general(req, res, next);
    let slug: string;
    try {
      slug = decodeURIComponent(lane[1]);
    } catch {
      return general(req, res, next);
    }
    agents.originsFor(slug).then((listed) => {
      const wanted = lowerOrigin(origin);
      if (!listed || wanted === agents.ownOrigin?.()) return general(req, res, next);
      // The answer depends on the Origin: caches must keep one per origin.
      res.setHeader('Vary', 'Origin');
      if (listed.has(wanted)) return allow(req, res, next, origin);
      if (req.method === 'OPTIONS') return void res.status(204).end();
      next(new DomainError('ORIGIN_NOT_ALLOWED', 'This origin is not allowed to use this agent (its widget allowedOrigins)'));
    }, next);
  };
}
