import { createHash } from 'node:crypto';
import { readFile, stat } from 'node:fs/promises';
import { join, resolve } from 'node:path';

import type { NextFunction, Request, Response } from 'express';

/** Where `npm run build:widget` writes the bundle (dist/ is built, never committed). */
export const DEFAULT_WIDGET_DIR = resolve(__dirname, '..', '..', 'dist', 'widget');

const NOT_BUILT = 'The chat widget is not built. Run `npm run build:ui` (npm install runs it), then request /widget.js again.\n';
/** `/widget.js?v=<hash>` names one build for ever; the bare URL a site pastes must pick up new builds. */
const IMMUTABLE = 'public, max-age=31536000, immutable';
const REVALIDATE = 'public, max-age=3600, stale-while-revalidate=86400';

interface Bundle {
  mtimeMs: number;
  size: number;
  body: Buffer;
  hash: string;
  etag: string;
}

/**
 * GET /widget.js on the open lane: the built widget for any site to load cross-origin (CORS and a
 * cross-origin resource policy, which helmet would otherwise set to same-origin), cached with an ETag of its
 * content hash. The file is re-read only when it changes on disk, so a rebuild needs no restart; a missing
 * build answers 503 with the command to run.
 */
export function widgetAsset(dir: string = DEFAULT_WIDGET_DIR) {
  const file = join(dir, 'widget.js');
  let cached: Bundle | null = null;

  async function load(): Promise<Bundle | null> {
    let info;
    try {
      info = await stat(file);
    } catch {
      cached = null;
      return null;
    }
    if (cached && cached.mtimeMs === info.mtimeMs && cached.size === info.size) return cached;
    const body = await readFile(file);
    const hash = createHash('sha256').update(body).digest('hex');
    cached = { mtimeMs: info.mtimeMs, size: info.size, body, hash, etag: `"${hash.slice(0, 32)}"` };
    return cached;
  }

  return (req: Request, res: Response, next: NextFunction): void => {
    load()
      .then((bundle) => {
        res.setHeader('Access-Control-Allow-Origin', '*');
        res.setHeader('Cross-Origin-Resource-Policy', 'cross-origin');
        if (!bundle) {
          res.setHeader('Cache-Control', 'no-store');
          res.status(503).type('text/plain; charset=utf-8').send(NOT_BUILT);
          return;
        }
        const version = typeof req.query.v === 'string' ? req.query.v : undefined;
        res.setHeader('Cache-Control', version && bundle.hash.startsWith(version) && version.length >= 8 ? IMMUTABLE : REVALIDATE);
        res.setHeader('ETag', bundle.etag);
        res.setHeader('X-Widget-Version', bundle.hash.slice(0, 16));
        if (req.headers['if-none-match']?.split(/\s*,\s*/).includes(bundle.etag)) {
          res.status(304).end();
          return;
        }
        // setHeader, not res.type: the exact media type of RFC 9239 with a charset. Node sends no body to HEAD.
        res.setHeader('Content-Type', 'text/javascript; charset=utf-8');
        res.setHeader('Content-Length', String(bundle.body.length));
        res.status(200).end(bundle.body);
      })
      .catch(next);
  };
}
