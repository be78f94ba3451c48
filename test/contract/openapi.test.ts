import { Validator } from '@seriousme/openapi-schema-validator';

import { createApi } from '../../app/roles';
import { allOperations } from '../../contracts';
import type { AuthLane } from '../../contracts/operation';
import { classifyLane, type Lane } from '../../gateway/lanes';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

let p: TestPlatform;
let doc: any;
beforeAll(async () => {
  p = await startTestPlatform();
  const r = await p.http.get('/api/openapi.json');
  expect(r.status).toBe(200);
  doc = r.body;
}, BOOT_TIMEOUT_MS);
afterAll(() => p?.close(), BOOT_TIMEOUT_MS);

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean> };
  handle: { stack?: Layer[] };
  rawPath?: unknown;
  slash?: boolean;
}

/** Method + path of every route in an express router, nested routers included. */
function mountedRoutes(router: { stack: Layer[] }): string[] {
  const out: string[] = [];
  const walk = (stack: Layer[], prefix: string) => {
    for (const layer of stack) {
      if (layer.route) {
        const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
        for (const path of paths) {
          for (const [method, on] of Object.entries(layer.route.methods)) {
            if (!on) continue;
            if (method === '_all') throw new Error(`route ${path} answers every method; the contract cannot describe it`);
            // `\:` is a literal colon for the router (`/v1/agents\:from-url`); the document writes it plainly.
            out.push(`${method} ${prefix}${String(path).replace(/\\:/g, ':')}`);
          }
        }
      } else if (layer.handle?.stack) {
        const mount = layer.slash || layer.rawPath === '/' ? '' : layer.rawPath;
        if (typeof mount !== 'string') throw new Error(`router mounted at a non-string path: ${String(mount)}`);
        walk(layer.handle.stack, `${prefix}${mount}`);
      }
    }
  };
  walk(router.stack, '');
  return out;
}

const documentedRoutes = (d: any): string[] =>
  Object.entries(d.paths as Record<string, Record<string, unknown>>).flatMap(([path, item]) =>
    Object.keys(item)
      .filter((k) => METHODS.includes(k))
      .map((m) => `${m} ${path.replace(/\{([^}]+)\}/g, ':$1')}`),
  );

describe('the OpenAPI document', () => {
  it('is served through the gateway as OpenAPI 3.1', () => {
    expect(doc.openapi).toMatch(/^3\.1\.\d+$/);
    expect(doc.info).toMatchObject({ title: expect.any(String), version: expect.any(String) });
    expect(Object.keys(doc.paths).length).toBeGreaterThan(10);
    expect(doc.components.securitySchemes).toHaveProperty('bearerAuth');
  });

  it('describes every operation completely', () => {
    const ids = new Set<string>();
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      const names = [...path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]);
      for (const [method, o] of Object.entries(item)) {
        const where = `${method.toUpperCase()} ${path}`;
        expect({ where, ok: METHODS.includes(method) }).toEqual({ where, ok: true });
        expect({ where, dup: ids.has(o.operationId) }).toEqual({ where, dup: false });
        ids.add(o.operationId);
        expect({ where, summary: typeof o.summary }).toEqual({ where, summary: 'string' });
        expect({ where, success: Object.keys(o.responses).some((s) => /^[23]\d\d$/.test(s)) }).toEqual({ where, success: true });
        const pathParams = (o.parameters ?? []).filter((x: any) => x.in === 'path').map((x: any) => x.name);
        expect({ where, pathParams: pathParams.sort() }).toEqual({ where, pathParams: names.sort() });
        expect(Array.isArray(o.security)).toBe(true);
      }
    }
  });

  it('matches the routes the backend mounts, both ways', () => {
    // The operations' routes; the probes, /metrics and the static assets are served beside them, off the contract.
    const mounted = mountedRoutes(createApi(p.container).operationRoutes as unknown as { stack: Layer[] });
    const documented = documentedRoutes(doc);
    expect(new Set(mounted).size).toBe(mounted.length);
    expect({ missingFromDocument: mounted.filter((r) => !documented.includes(r)) }).toEqual({ missingFromDocument: [] });
    expect({ documentedButNotMounted: documented.filter((r) => !mounted.includes(r)) }).toEqual({ documentedButNotMounted: [] });
  });

  it("agrees with the gateway's lanes: each operation is reachable with the credentials it declares", () => {
    const expected: Record<AuthLane, Lane> = { open: 'open', user: 'jwt', public: 'public', apiKey: 'api-key' };
    const mismatches = allOperations(p.infra.plugins.catalogue())
      .map((o) => {
        const concrete = o.path.replace(/:([A-Za-z0-9_]+)/g, '0b6e2f7d-1c11-4c61-9a57-3f1c2a9e8d4b');
        return { op: o.operationId, declared: expected[o.auth], gateway: classifyLane(o.method.toUpperCase(), concrete.toLowerCase()) };
      })
      .filter((m) => m.declared !== m.gateway);
    expect(mismatches).toEqual([]);
  });

  it('is a valid OpenAPI 3.1 document (checked by an OpenAPI schema validator)', async () => {
    const validator = new Validator();
    const result = await validator.validate(structuredClone(doc));
    expect({ valid: result.valid, errors: result.valid ? undefined : JSON.stringify(result.errors).slice(0, 2000) }).toEqual({
      valid: true,
      errors: undefined,
    });
  });

  it('gives every operation a description and at least one example, and every named schema an example', () => {
    const lacking: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, any>>)) {
      for (const [method, o] of Object.entries(item)) {
        const media = [o.requestBody, ...Object.values(o.responses)].flatMap((x: any) => Object.values(x?.content ?? {}));
        const examples = [...media, ...(o.parameters ?? [])].filter((m: any) => m.example !== undefined);
        if (typeof o.description !== 'string' || !o.description) lacking.push(`${method} ${path}: description`);
        if (examples.length === 0) lacking.push(`${method} ${path}: example`);
      }
    }
    for (const [name, schema] of Object.entries(doc.components.schemas as Record<string, any>)) {
      if (!Array.isArray(schema.examples) || schema.examples.length === 0) lacking.push(`schema ${name}: example`);
    }
    expect(lacking).toEqual([]);
  });

  it('/api/docs renders the document with an offline reference page (no CDN, no inline script)', async () => {
    const r = await p.http.get('/api/docs');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/html/);
    expect(r.headers.get('content-security-policy')).toContain("script-src 'self';");
    const scripts = [...r.text.matchAll(/<script([^>]*)>/g)].map((m) => m[1]);
    expect(scripts.length).toBeGreaterThan(0);
    expect(scripts.every((attrs) => /src="\/api\/docs\/assets\//.test(attrs))).toBe(true);
    const init = await p.http.get('/api/docs/assets/init.js');
    expect(init.text).toContain('/api/openapi.json');
    const bundle = await p.http.get('/api/docs/assets/swagger-ui-bundle.js');
    expect(bundle.status).toBe(200);
    expect(bundle.headers.get('content-type')).toMatch(/javascript/);
    expect(bundle.text.length).toBeGreaterThan(100_000);
    expect((await p.http.get('/api/docs/assets/package.json')).status).toBe(400);
    expect((await p.http.get('/api/docs/assets/..%2f..%2fpackage.json')).status).toBeGreaterThanOrEqual(400);
  });
});
