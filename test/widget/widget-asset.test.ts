/**
 * GET /widget.js through the real gateway and backend app (no database needed): what a site embedding the
 * widget relies on, and the message an operator gets when the build step was skipped.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { Hs256TokenSigner } from '../../adapters/crypto/hs256.token-signer';
import { createApiApp } from '../../adapters/http/api-app';
import { InProcessNonceRegistry } from '../../adapters/memory/in-process.nonce-registry';
import { InProcessRateLimitStore } from '../../adapters/memory/in-process.rate-limit-store';
import { createGateway, type Gateway } from '../../gateway';

const SECRET = 'widget-asset-test-internal-secret-0123456789';
const clock = { now: () => new Date() };

interface Running {
  url: string;
  close(): Promise<void>;
}

async function platformServing(widgetDir: string): Promise<Running> {
  const api = createApiApp({
    operations: [],
    handlers: {},
    internalSecret: SECRET,
    clock,
    resolveActor: async () => null,
    nonces: new InProcessNonceRegistry(),
    widgetDir,
  });
  const backend = await new Promise<Server>((resolve) => {
    const s = api.listen(0, '127.0.0.1', () => resolve(s));
  });
  const gateway: Gateway = createGateway({
    upstream: { host: '127.0.0.1', port: (backend.address() as AddressInfo).port },
    tokenSigner: new Hs256TokenSigner({ secret: 'widget-asset-test-jwt-secret-0123456789abcdef', clock }),
    verifyApiKey: async () => null,
    rateLimitStore: new InProcessRateLimitStore(),
    limits: { perIp: { limit: 10_000, windowSeconds: 60 }, perPrincipal: { limit: 10_000, windowSeconds: 60 } },
    internalSecret: SECRET,
    clock,
  });
  const { port } = await gateway.listen(0, '127.0.0.1');
  return {
    url: `http://127.0.0.1:${port}`,
    close: async () => {
      await gateway.close(0);
      await new Promise((r) => backend.close(r));
    },
  };
}

let dir: string;
let platform: Running;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'widget-asset-'));
  platform = await platformServing(dir);
});
afterAll(async () => {
  await platform?.close();
  rmSync(dir, { recursive: true, force: true });
});

const widgetUrl = () => `${platform.url}/widget.js`;
const SITE = { origin: 'https://shop.example' };

describe('GET /widget.js', () => {
  it('answers 503 with the build command, never 500, while the widget is not built', async () => {
    rmSync(join(dir, 'widget.js'), { force: true });
    const res = await fetch(widgetUrl());
    expect(res.status).toBe(503);
    expect(res.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(await res.text()).toContain('npm run build:ui');
  });

  it('serves the built script as JavaScript that any site may load, with an ETag of its content', async () => {
    writeFileSync(join(dir, 'widget.js'), 'console.log("widget v1");');
    const res = await fetch(widgetUrl(), { headers: SITE });
    expect(res.status).toBe(200);
    expect(res.headers.get('content-type')).toBe('text/javascript; charset=utf-8');
    expect(await res.text()).toBe('console.log("widget v1");');
    expect(res.headers.get('access-control-allow-origin')).toBe('*');
    // helmet's same-origin default would stop a <script> on another site from loading it.
    expect(res.headers.get('cross-origin-resource-policy')).toBe('cross-origin');
    expect(res.headers.get('x-content-type-options')).toBe('nosniff');
    expect(res.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(res.headers.get('etag')).toMatch(/^"[0-9a-f]{32}"$/);
  });

  it('answers 304 to a matching If-None-Match and a new ETag once the file is rebuilt', async () => {
    writeFileSync(join(dir, 'widget.js'), 'console.log("widget v1");');
    const first = await fetch(widgetUrl());
    const etag = first.headers.get('etag')!;
    const again = await fetch(widgetUrl(), { headers: { 'if-none-match': etag } });
    expect(again.status).toBe(304);
    expect(again.headers.get('etag')).toBe(etag);

    writeFileSync(join(dir, 'widget.js'), 'console.log("widget v2, rebuilt");');
    const rebuilt = await fetch(widgetUrl(), { headers: { 'if-none-match': etag } });
    expect(rebuilt.status).toBe(200);
    expect(rebuilt.headers.get('etag')).not.toBe(etag);
    expect(await rebuilt.text()).toContain('v2');
  });

  it('caches a URL naming the current build for a year, and only that one', async () => {
    writeFileSync(join(dir, 'widget.js'), 'console.log("widget v3");');
    const version = (await fetch(widgetUrl())).headers.get('x-widget-version')!;
    expect(version).toMatch(/^[0-9a-f]{16}$/);
    const pinned = await fetch(`${widgetUrl()}?v=${version}`);
    expect(pinned.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    const stale = await fetch(`${widgetUrl()}?v=0123456789abcdef`);
    expect(stale.headers.get('cache-control')).not.toContain('immutable');
  });
});
