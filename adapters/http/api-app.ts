import express, { type NextFunction, type Request, type Response } from 'express';

import type { Operation } from '../../contracts/operation';
import type { Actor } from '../../core/identity/actor';
import type { ForwardedIdentity } from '../../core/identity/token-claims';
import type { Clock } from '../../core/ports/clock';
import { toHttpError } from './error-mapper';
import type { HandlerMap } from './handler';
import { verifyIdentity } from './identity-signature';
import { mountOperations } from './mount-operations';

export interface ApiAppOptions {
  operations: Operation[];
  handlers: HandlerMap;
  internalSecret: string;
  clock: Clock;
  resolveActor(identity: ForwardedIdentity): Promise<Actor | null>;
  log?: (level: 'error' | 'warn' | 'info', message: string, extra?: unknown) => void;
  jsonLimit?: string;
}

const UNSIGNED_PATHS = new Set(['/health']);

/**
 * The backend HTTP adapter. It trusts identity only from a valid gateway signature, so a backend reached
 * directly cannot be spoofed: every other request gets 401.
 */
export function createApiApp(options: ApiAppOptions) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  app.get('/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.use((req: Request, res: Response, next: NextFunction) => {
    if (UNSIGNED_PATHS.has(req.path)) return next();
    const identity = verifyIdentity(options.internalSecret, req.headers, req.method, req.originalUrl, options.clock.now().getTime());
    if (!identity) {
      res.status(401).json({ error: 'Authentication Failed', message: 'Requests must come through the gateway' });
      return;
    }
    res.locals.identity = identity;
    next();
  });
  app.use(express.json({ limit: options.jsonLimit ?? '25mb', type: ['application/json', 'application/*+json'] }));
  app.use(
    mountOperations(options.operations, options.handlers, {
      identityOf: (req) => req.res?.locals.identity as ForwardedIdentity,
      resolveActor: options.resolveActor,
    }),
  );
  app.use((req: Request, res: Response) => {
    res.status(404).json({ error: 'Not Found', message: `No route for ${req.method} ${req.path}` });
  });
  app.use((err: unknown, req: Request, res: Response, _next: NextFunction) => {
    const { status, body } = toHttpError(err);
    if (status >= 500) options.log?.('error', `${req.method} ${req.path} failed`, err);
    if (res.headersSent) {
      res.end();
      return;
    }
    res.status(status).json(body);
  });
  return app;
}
