/**
 * The standard tests every source plugin gets for free (run by test/sources/source-plugins.conformance.test.ts
 * on every discovered plugin): its contract and URL examples, options validation, network access only
 * through the SSRF-guarded fetcher, stable keys and content hashes, and health reporting through a real sync.
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';

import { CheerioHtmlReader } from '../../adapters/documents/html.reader';
import { SsrfGuardedFetcher } from '../../adapters/outbound/ssrf-guarded.fetcher';
import type { OutboundFetcher, OutboundRequest } from '../../core/ports/outbound-fetcher';
import { sha256Hex } from '../../core/shared/hash';
import type { SourceContext, SourcePlugin, SourceTarget } from '../../core/sources/source-plugin';
import type { SourceRegistry } from '../../core/sources/source-registry';
import { DEFAULT_SOURCES_SETTINGS, type SourcesDeps } from '../../core/sources/sources-deps';
import { syncSource } from '../../core/sources/sync-source';
import type { KnowledgeHarness } from '../knowledge/knowledge-harness';
import type { SourceSample } from './source-sample';

export interface SourcePluginEnv {
  registry: SourceRegistry;
  /** The plugin's sample upstream, or null (a package without one gets the checks that need no upstream). */
  sample: SourceSample | null;
  /** The plugin's own files, for the static network check (null for a package). */
  folder: string | null;
  knowledge(): KnowledgeHarness;
}

/** A local server playing every host the plugin asks for, from its sample. */
export class SampleUpstream {
  revision = 1;
  down = false;
  hits: string[] = [];
  private server?: Server;
  port = 0;

  constructor(private readonly sample: SourceSample) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const url = new URL(req.url ?? '/', 'http://x');
      const host = String(req.headers['x-sample-host'] ?? '127.0.0.1');
      this.hits.push(`${host}${url.pathname}`);
      const reply = this.down
        ? { status: 503, body: 'down for maintenance' }
        : this.sample.upstream(
            { method: req.method ?? 'GET', host, path: url.pathname, query: url.searchParams, headers: req.headers },
            this.revision,
          );
      if (!reply) return void res.writeHead(404, { 'content-type': 'text/html' }).end('<html><body>not found</body></html>');
      res.writeHead(reply.status ?? 200, { 'content-type': reply.type ?? 'text/html; charset=utf-8', ...reply.headers }).end(reply.body);
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    this.port = (this.server.address() as AddressInfo).port;
  }

  /**
   * The real SSRF-guarded fetcher behind a test-only rewrite that sends every host to this server
   * (the original host in a header). `allowed: false` keeps the guard's refusal of loopback addresses.
   */
  fetcher(allowed = true): OutboundFetcher {
    const guard = new SsrfGuardedFetcher(allowed ? { allow: [`127.0.0.1:${this.port}`] } : {});
    const local = `http://127.0.0.1:${this.port}`;
    return {
      // The answer names the URL the plugin asked for, so links on the page resolve against the original host.
      fetch: async (request: OutboundRequest) => {
        const url = new URL(request.url);
        const response = await guard.fetch({
          ...request,
          url: `${local}${url.pathname}${url.search}`,
          headers: { ...request.headers, 'x-sample-host': url.hostname },
        });
        return { ...response, url: response.url.startsWith(local) ? `${url.origin}${response.url.slice(local.length)}` : response.url };
      },
    };
  }

  async close(): Promise<void> {
    this.server?.closeAllConnections();
    await new Promise<void>((resolve) => (this.server ? this.server.close(() => resolve()) : resolve()));
  }
}

/** Modules a plugin must not use: the network is reached only through `ctx.fetcher`. */
const NETWORK_MODULES =
  /from ['"](node:)?(http|https|net|tls|dgram|http2|dns)['"]|from ['"](undici|axios|node-fetch|got|superagent)['"]|require\(['"](node:)?(http|https|net|tls)['"]\)/;
const GLOBAL_FETCH = /(^|[^.\w])fetch\s*\(/m;

function pluginFiles(folder: string): string[] {
  return readdirSync(folder, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return e.name === 'test-fixtures' ? [] : pluginFiles(join(folder, e.name));
    return /\.[cm]?[jt]s$/.test(e.name) && !/\.test\./.test(e.name) ? [join(folder, e.name)] : [];
  });
}

const wrongValueFor = (schema: Record<string, unknown>): unknown =>
  schema.enum
    ? '__not-one-of-them__'
    : schema.type === 'string'
      ? 12345
      : schema.type === 'array'
        ? 'not-a-list'
        : 'not-a-number-or-boolean';

export function sourcePluginConformance(type: string, env: () => SourcePluginEnv): void {
  describe(`source plugin conformance: ${type}`, () => {
    let registry: SourceRegistry;
    let plugin: SourcePlugin;
    beforeAll(() => {
      registry = env().registry;
      plugin = registry.get(type);
    });

    it('declares the closed contract: capabilities backed by methods, a description', () => {
      const [d] = registry.descriptors().filter((x) => x.type === type);
      expect(d.description.length).toBeGreaterThan(10);
      expect(d.capabilities.includes('probe')).toBe(typeof plugin.probe === 'function');
    });

    it('recognises and normalises the URLs it declares, and refuses those it cannot read', () => {
      for (const [input, canonical] of plugin.urls.normalizes) {
        expect({ input, normalized: plugin.normalize(input) }).toEqual({ input, normalized: canonical });
        expect({ canonical, again: plugin.normalize(canonical) }).toEqual({ canonical, again: canonical });
        expect({ canonical, recognized: plugin.recognizes(new URL(canonical)) }).toEqual({ canonical, recognized: true });
        if (plugin.capabilities.includes('detect'))
          expect({ canonical, detected: registry.detect(canonical)?.type }).toEqual({ canonical, detected: type });
      }
      for (const url of plugin.urls.rejects ?? [])
        expect(() => plugin.normalize(url)).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_URL' }));
    });

    it('validates its options: defaults applied, wrongly typed values refused', () => {
      const [d] = registry.descriptors().filter((x) => x.type === type);
      const properties = (d.optionsSchema as { properties: Record<string, Record<string, unknown>> }).properties;
      const defaults = registry.validateOptions(type, {});
      for (const [key, schema] of Object.entries(properties)) {
        if ('default' in schema) expect({ key, value: defaults[key] }).toEqual({ key, value: schema.default });
        expect(() => registry.validateOptions(type, { [key]: wrongValueFor(schema) })).toThrow(
          expect.objectContaining({ code: 'VALIDATION' }),
        );
      }
      expect(() => registry.validateOptions(type, { __unknownOption: true })).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    });

    it('uses no network module of its own', () => {
      const folder = env().folder;
      if (!folder) return; // a package: checked at run time below when it ships a sample
      for (const file of pluginFiles(folder)) {
        const text = readFileSync(file, 'utf8');
        expect({ file, networkModule: NETWORK_MODULES.test(text), globalFetch: GLOBAL_FETCH.test(text) }).toEqual({
          file,
          networkModule: false,
          globalFetch: false,
        });
      }
    });

    describe('against its sample upstream', () => {
      let upstream: SampleUpstream;
      let sample: SourceSample;
      let target: SourceTarget;
      const logs: string[] = [];
      const context = (fetcher: OutboundFetcher): SourceContext => ({
        fetcher,
        html: new CheerioHtmlReader(),
        secrets: registry.secrets(type),
        requestTimeoutMs: 5000,
        maxResponseBytes: 5 * 1024 * 1024,
        log: (_level, message) => logs.push(message),
      });

      beforeAll(async () => {
        const s = env().sample;
        if (!s) throw new Error(`${type} has no sample upstream (test-fixtures/sample.ts)`);
        sample = s;
        upstream = new SampleUpstream(sample);
        await upstream.start();
        target = { url: plugin.normalize(sample.url), options: registry.validateOptions(type, sample.options ?? {}) };
      });
      afterAll(() => upstream?.close());
      beforeEach(() => {
        upstream.revision = 1;
        upstream.down = false;
        upstream.hits.length = 0;
      });

      it('reaches the network only through the SSRF-guarded fetcher (refused: nothing leaves)', async () => {
        const error = await plugin.listItems(target, context(upstream.fetcher(false))).then(
          () => null,
          (e: unknown) => e,
        );
        expect(error).toMatchObject({
          code: 'UNSUPPORTED_URL',
          message: expect.stringMatching(/non-public|not allowed|refused|internal/i),
        });
        expect(upstream.hits).toEqual([]);
      });

      it('lists items with stable keys; their content hash changes only when the content does', async () => {
        const hashes = async () => {
          const ctx = context(upstream.fetcher());
          const listing = await plugin.listItems(target, ctx);
          const entries = await Promise.all(
            listing.items.map(async (i) => [i.key, i.item ?? (await plugin.fetchItem(i, target, ctx))] as const),
          );
          for (const [, item] of entries) expect(item.text.trim().length + item.title.trim().length).toBeGreaterThan(0);
          return new Map(entries.map(([key, item]) => [key, sha256Hex(`${item.title}\n${item.text}`)]));
        };
        const first = await hashes();
        expect(first.size).toBeGreaterThan(0);
        expect(upstream.hits.length).toBeGreaterThan(0);
        expect(await hashes()).toEqual(first);
        upstream.revision = 2;
        const second = await hashes();
        expect([...second.keys()].sort()).toEqual([...first.keys()].sort());
        expect([...second].filter(([key, hash]) => first.get(key) !== hash).length).toBeGreaterThan(0);
      });

      it('probes a readable URL, and fails the probe of an unreachable upstream with a domain error', async () => {
        if (!plugin.probe) return;
        await expect(plugin.probe(target, context(upstream.fetcher()))).resolves.toBeUndefined();
        upstream.down = true;
        await expect(plugin.probe(target, context(upstream.fetcher()))).rejects.toMatchObject({
          code: expect.stringMatching(/^(UPSTREAM_FAILED|UNSUPPORTED_URL|STORE_THROTTLED)$/),
        });
      });

      it('reports its health through a sync: healthy, unchanged items skipped, changed ones re-indexed, failures recorded without secrets', async () => {
        const k = env().knowledge();
        const { organizationId } = await k.newOrganization(`conformance-${type}`);
        const kb = await k.newKnowledgeBase(organizationId);
        const deps: SourcesDeps = {
          knowledge: k.deps,
          registry,
          fetcher: upstream.fetcher(),
          html: new CheerioHtmlReader(),
          settings: DEFAULT_SOURCES_SETTINGS,
          log: (_level, message, extra) => logs.push(`${message} ${JSON.stringify(extra ?? null)}`),
        };
        const now = new Date().toISOString();
        const source = {
          id: randomUUID(),
          organizationId,
          knowledgeBaseId: kb.id,
          url: target.url,
          sourceType: type,
          options: target.options,
          syncEnabled: false,
          syncFrequencyMinutes: 60,
          lastSyncedAt: null,
          nextSyncAt: null,
          lastSyncError: null,
          syncHealth: 'pending',
          createdBy: null,
          createdAt: now,
          updatedAt: now,
        };
        await k.deps.store.repos.sources.create(source);
        const sync = () => syncSource(deps, { organizationId, sourceId: source.id });
        const stored = () => k.deps.store.repos.sources.findById(organizationId, source.id);

        const first = await sync();
        expect(first).toMatchObject({ status: 'healthy', failed: 0, updated: 0, unchanged: 0 });
        expect(first.created).toBe(first.listed);
        expect(await stored()).toMatchObject({ syncHealth: 'healthy', lastSyncError: null, lastSyncedAt: expect.any(String) });
        expect(await sync()).toMatchObject({ status: 'healthy', created: 0, updated: 0, unchanged: first.listed });
        upstream.revision = 2;
        const changed = await sync();
        expect(changed.updated).toBeGreaterThan(0);
        expect(changed.created + changed.updated + changed.unchanged).toBe(changed.listed);

        upstream.down = true;
        expect(await sync()).toMatchObject({ status: 'failing' });
        const failing = await stored();
        expect(failing).toMatchObject({ syncHealth: 'failing', lastSyncError: expect.any(String) });
        for (const value of Object.values(sample.secrets ?? {})) {
          expect(failing!.lastSyncError).not.toContain(value);
          expect(logs.join('\n')).not.toContain(value);
        }
      });
    });
  });
}
