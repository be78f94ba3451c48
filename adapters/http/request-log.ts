import { randomUUID } from 'node:crypto';

import type { NextFunction, Request, Response } from 'express';

import { runWithRequestContext } from '../observability/request-context';

type Log = (level: 'error' | 'warn' | 'info', message: string, extra?: unknown) => void;

/**
 * One log line per request (method, route template, status, duration, request id, organization; never
 * bodies or credentials), and the request id on every answer. The id comes from the gateway, which is the
 * only sender the api trusts (its requests are signed); a request without one gets its own. The rest of the
 * request runs with the id as its context, so its other log lines and the jobs it enqueues carry it too.
 */
export function requestLog(log: Log | undefined) {
  return (req: Request, res: Response, next: NextFunction): void => {
    const started = process.hrtime.bigint();
    const given = req.headers['x-request-id'];
    const requestId = typeof given === 'string' && given ? given : randomUUID();
    res.locals.requestId = requestId;
    res.setHeader('X-Request-Id', requestId);
    if (log) {
      res.once('finish', () => {
        const identity = res.locals.identity as { organizationId?: string | null } | undefined;
        log('info', 'request', {
          method: req.method,
          route: (req.route as { path?: string } | undefined)?.path ?? null,
          status: res.statusCode,
          durationMs: Number(process.hrtime.bigint() - started) / 1e6,
          requestId,
          organizationId: identity?.organizationId ?? null,
        });
      });
    }
    runWithRequestContext({ requestId }, next);
  };
}
