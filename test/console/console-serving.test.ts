/** The backend's /console route (adapters/http/console-static.ts) on a built console and on a missing build. */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import express from 'express';

import { CONSOLE_CSP, consoleStatic } from '../../adapters/http/console-static';

const INDEX =
  '<!doctype html><html lang="en"><title>console</title><script type="module" src="/console/assets/index-abc123.js"></script></html>';

async function serve(dir: string): Promise<{ url: string; close(): Promise<void> }> {
  const app = express();
  app.use(consoleStatic(dir));
  app.use((_req, res) => void res.status(404).json({ error: 'Not Found', message: 'no route' }));
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    close: () => new Promise<void>((r) => server.close(() => r())),
  };
}

describe('/console serving', () => {
  let dir: string;
  let site: Awaited<ReturnType<typeof serve>>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'console-build-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(join(dir, 'index.html'), INDEX);
    writeFileSync(join(dir, 'assets', 'index-abc123.js'), 'console.log("console");');
    site = await serve(dir);
  });
  afterAll(async () => {
    await site.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers index.html on /console and /console/, never cached, with the console CSP', async () => {
    for (const path of ['/console', '/console/']) {
      const r = await fetch(site.url + path);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(r.headers.get('cache-control')).toBe('no-cache');
      expect(r.headers.get('content-security-policy')).toBe(CONSOLE_CSP);
      expect(await r.text()).toBe(INDEX);
    }
  });

  it('falls back to index.html for client-side routes, so a reload on a deep link works', async () => {
    const r = await fetch(`${site.url}/console/agents/6b1f0c8e-0000-4000-8000-000000000000`);
    expect(r.status).toBe(200);
    expect(await r.text()).toBe(INDEX);
  });

  it('serves hashed assets with their type and a one-year immutable cache; a missing asset is a 404, not the index', async () => {
    const r = await fetch(`${site.url}/console/assets/index-abc123.js`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/javascript/);
    expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(await r.text()).toBe('console.log("console");');

    const missing = await fetch(`${site.url}/console/assets/index-gone.js`);
    expect(missing.status).toBe(404);
    expect(await missing.text()).not.toContain('<html');
  });

  it('does not serve files outside the build', async () => {
    const r = await fetch(`${site.url}/console/assets/%2e%2e%2findex.html`);
    expect([400, 403, 404]).toContain(r.status);
    expect(await r.text()).not.toContain('<html');
  });

  it('leaves other paths to the rest of the app', async () => {
    expect((await fetch(`${site.url}/consoles`)).status).toBe(404);
    expect((await fetch(`${site.url}/console`, { method: 'POST' })).status).toBe(404);
  });

  it('says how to build the console when the build is missing, with a 503 instead of a 500', async () => {
    const empty = await serve(join(dir, 'not-built'));
    try {
      for (const path of ['/console', '/console/knowledge', '/console/assets/index-abc123.js']) {
        const r = await fetch(empty.url + path);
        expect(r.status).toBe(503);
        expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
        expect(await r.text()).toContain('npm run build:ui');
      }
    } finally {
      await empty.close();
    }
  });
});
