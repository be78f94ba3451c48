import { existsSync } from 'node:fs';
import { join } from 'node:path';

import express, { type NextFunction, type Request, type Response, type Router } from 'express';

/** Where `npm run build:console` writes the operator console (dist/ at the repository root). */
export const DEFAULT_CONSOLE_DIR = join(__dirname, '..', '..', 'dist', 'console');

/**
 * The console's pages load only their own scripts and styles and talk only to this origin's API; nothing may
 * frame them. Inline style attributes stay refused: styles come from the built stylesheet (charts set
 * element.style through the DOM, which CSP allows).
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data: blob:",
  "connect-src 'self'",
  "font-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

const MISSING_BUILD = 'The operator console is not built. Run `npm run build:ui` (or `npm install`, which runs it) and reload this page.\n';

/**
 * Serves the built console under /console: hashed assets cached for a year, index.html never cached (a new
 * build must reach browsers at once), every other /console path answered with index.html so the client-side
 * router can open it (a reload on /console/agents works). The build is looked up per request, so building
 * after the platform started needs no restart; a missing build answers 503 with what to run, never a 500.
 */
export function consoleStatic(dir: string = DEFAULT_CONSOLE_DIR): Router {
  const router = express.Router();
  const indexPath = join(dir, 'index.html');
  const assets = express.static(join(dir, 'assets'), {
    index: false,
    fallthrough: false,
    immutable: true,
    maxAge: '365d',
  });

  router.use('/console', (req: Request, res: Response, next: NextFunction) => {
    if (req.method !== 'GET' && req.method !== 'HEAD') return next();
    res.setHeader('content-security-policy', CONSOLE_CSP);
    if (!existsSync(indexPath)) {
      res.status(503).type('text/plain').setHeader('cache-control', 'no-store');
      return void res.send(MISSING_BUILD);
    }
    // Content-hashed file names: a changed file gets a new name, so the old one may be cached for good.
    if (req.path.startsWith('/assets/')) {
      req.url = req.url.slice('/assets'.length);
      return assets(req, res, (err?: unknown) => {
        const status = (err as { status?: number } | undefined)?.status ?? 404;
        res
          .status(status === 404 ? 404 : 400)
          .type('text/plain')
          .setHeader('cache-control', 'no-store');
        res.send(status === 404 ? 'Not found\n' : 'Bad request\n');
      });
    }
    res.setHeader('cache-control', 'no-cache');
    res.sendFile(indexPath, { lastModified: false, cacheControl: false }, (err) => {
      if (err && !res.headersSent) next(err);
    });
  });
  return router;
}
