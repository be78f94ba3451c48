import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

import type { Response } from 'express';

import type { DOCS_ASSETS } from '../../contracts/operations/platform';

/**
 * The API reference at /api/docs: Swagger UI from the swagger-ui-dist package, served by the platform itself
 * (no CDN), reading /api/openapi.json. No inline script: the page works under a CSP with `script-src 'self'`.
 */
export type DocsAsset = (typeof DOCS_ASSETS)[number];

const PAGE = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Agent Platform API reference</title>
<link rel="icon" type="image/png" href="/api/docs/assets/favicon-32x32.png">
<link rel="stylesheet" href="/api/docs/assets/swagger-ui.css">
</head>
<body>
<main id="reference"><noscript>The reference needs JavaScript; the machine-readable document is at <a href="/api/openapi.json">/api/openapi.json</a> (OpenAPI 3.1).</noscript></main>
<script src="/api/docs/assets/swagger-ui-bundle.js"></script>
<script src="/api/docs/assets/init.js"></script>
</body>
</html>`;

const INIT = `window.ui = SwaggerUIBundle({ url: '/api/openapi.json', dom_id: '#reference', deepLinking: true, tryItOutEnabled: false, defaultModelsExpandDepth: 0 });\n`;

export const DOCS_CSP =
  "default-src 'self'; script-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; connect-src 'self'; frame-ancestors 'none'";

const TYPES: Record<string, string> = { css: 'text/css; charset=utf-8', js: 'text/javascript; charset=utf-8', png: 'image/png' };
const cache = new Map<DocsAsset, Buffer>();

function assetBytes(name: DocsAsset): Buffer {
  let bytes = cache.get(name);
  if (!bytes) {
    bytes = name === 'init.js' ? Buffer.from(INIT) : readFileSync(join(dirname(require.resolve('swagger-ui-dist/package.json')), name));
    cache.set(name, bytes);
  }
  return bytes;
}

export function sendDocsPage(res: Response): void {
  res.setHeader('Content-Security-Policy', DOCS_CSP);
  res.type('html').send(PAGE);
}

export function sendDocsAsset(res: Response, name: DocsAsset): void {
  res.setHeader('Content-Type', TYPES[name.split('.').pop()!]!);
  // The package version is pinned by the lock file; a day of caching is safe across restarts.
  res.setHeader('Cache-Control', 'public, max-age=86400');
  res.send(assetBytes(name));
}
