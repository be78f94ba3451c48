/**
 * `npm start` runs the platform under tsx, whose esbuild transform keeps names (`keepNames`): every closure bound
 * to a name (`const f = () => ...`, a nested `function f`, an arrow as an object property) is named again with a
 * defineProperty, and given a new map, each time the code that makes it runs. On the path of every request that
 * cost about ten of them a request (README, Runtime), so the functions below make no such closure. This test
 * compiles their files as tsx does and fails on any `__name(...)` call inside them.
 */
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';

import { transformSync } from 'esbuild';
import ts from 'typescript';

const ROOT = resolve(__dirname, '../..');

/** Functions that run on every request (GET /api/auth/me and the like), by file. */
const HOT_PATH: Record<string, string[]> = {
  'gateway/create-gateway.ts': ['handle', 'limitNow', 'authenticate', 'claimsIdentity', 'outbound', 'run'],
  'gateway/upstream-forwarder.ts': ['forward', 'send', 'handOver', 'relayResponse'],
  'gateway/request-body.ts': ['forwardBodyFor'],
  'gateway/verified-token-cache.ts': ['remembered'],
  'adapters/http/middleware-chain.ts': ['chainStep'],
  'adapters/http/mount-operations.ts': ['run', 'dispatch', 'needsActor', 'authorizeApiKey', 'check'],
  'adapters/http/json-response.ts': ['sendJson'],
  'adapters/postgres/identity-cache.ts': ['read', 'findWithRole', 'findById', 'listForUser', 'findBySecretHash'],
  'adapters/http/routes/identity.routes.ts': ['me'],
  'core/identity/resolve-actor.ts': ['resolveActor'],
};

/** What tsx's transform makes of a TypeScript file (the part that matters here: keepNames). */
const asTsxRuns = (source: string) => transformSync(source, { loader: 'ts', keepNames: true, format: 'cjs', target: 'node20' }).code;

/** The bodies of the functions named `name` in compiled `code`: declarations, methods, and functions bound to the name. */
function functionsNamed(code: string, name: string): ts.Node[] {
  const file = ts.createSourceFile('compiled.js', code, ts.ScriptTarget.ES2022, true, ts.ScriptKind.JS);
  const found: ts.Node[] = [];
  const unwrap = (e: ts.Expression | undefined): ts.Node | undefined => {
    if (e && ts.isCallExpression(e) && isNameCall(e)) return e.arguments[0]; // `__name(() => ..., "x")`
    return e && (ts.isArrowFunction(e) || ts.isFunctionExpression(e)) ? e : undefined;
  };
  const visit = (node: ts.Node): void => {
    const named = (n: ts.Node & { name?: ts.Node }) => n.name !== undefined && ts.isIdentifier(n.name) && n.name.text === name;
    if ((ts.isFunctionDeclaration(node) || ts.isMethodDeclaration(node)) && named(node)) found.push(node);
    if ((ts.isVariableDeclaration(node) || ts.isPropertyAssignment(node)) && named(node)) {
      const fn = unwrap(node.initializer);
      if (fn) found.push(fn);
    }
    ts.forEachChild(node, visit);
  };
  visit(file);
  return found;
}

const isNameCall = (node: ts.Node): node is ts.CallExpression =>
  ts.isCallExpression(node) && ts.isIdentifier(node.expression) && node.expression.text === '__name';

/** The names given again inside `fn` (each `__name(target, "x")` call's "x"). */
function namedInside(fn: ts.Node): string[] {
  const names: string[] = [];
  const visit = (node: ts.Node): void => {
    if (isNameCall(node)) names.push(node.arguments[1]?.getText() ?? '?');
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(fn, visit);
  return names;
}

it('finds a closure bound to a name, as tsx compiles it (the check below can fail)', () => {
  const code = asTsxRuns(
    'export function perRequest(x: number) { const twice = () => x * 2; return { twice, half: () => x / 2, third() { return x / 3; } }; }',
  );
  // an exported function is found twice: itself, and the getter of the CommonJS export (which names nothing)
  expect(functionsNamed(code, 'perRequest').flatMap(namedInside)).toEqual(['"twice"', '"half"']); // not the method `third`
});

describe.each(Object.entries(HOT_PATH))('%s', (file, names) => {
  const code = asTsxRuns(readFileSync(resolve(ROOT, file), 'utf8'));
  it.each(names)('%s makes no closure bound to a name', (name) => {
    const fns = functionsNamed(code, name);
    expect(fns.length).toBeGreaterThan(0); // renamed or moved: update HOT_PATH
    expect(fns.flatMap(namedInside)).toEqual([]);
  });
});
