import { resolve } from 'node:path';

import { buildModuleGraph, cyclesOf, type Edge, type ModuleGraph } from './module-graph';

/**
 * The architecture rules of docs/CONVENTIONS.md, checked on every import of the production code (static,
 * dynamic, require and type-only): no import cycles anywhere; core areas depend on each other without
 * loops; each layer imports only the layers below it, so only app/ wires adapters.
 */
const ROOT = resolve(__dirname, '../..');
const LAYERS = ['core', 'contracts', 'adapters', 'plugins', 'gateway', 'app', 'bin'] as const;
type Layer = (typeof LAYERS)[number];

/** Which layers each layer may import (besides npm packages; core's packages are checked by core-imports.test.ts). */
const MAY_IMPORT: Record<Layer, readonly Layer[]> = {
  core: ['core'],
  contracts: ['contracts', 'core'],
  adapters: ['adapters', 'core', 'contracts'],
  plugins: ['plugins', 'core'],
  gateway: ['gateway', 'core'],
  app: LAYERS,
  bin: ['app'],
};

/**
 * Known edges outside the table. Only one: the security engineer is moving the identity signature out of
 * adapters/http (and changing it); until that lands the gateway signs with it. Remove this entry then.
 */
const ALLOWED_EDGES = new Set<string>([]);

/** Test support shipped next to the code it serves (fakes, fixtures); like *.test.ts files, it may reach anything. */
const isTestSupport = (file: string) => /(^|\/)(testing|test-fixtures|fixtures)\//.test(file);

/**
 * The persistence aggregate names every area's repository interface by design (core/ports/repositories.ts):
 * its edges into the areas are left out of the area graph, and must stay type-only.
 */
const REPOSITORY_AGGREGATE = 'core/ports/repositories.ts';

const layerOf = (file: string) => file.split('/')[0] as Layer;
const areaOf = (file: string) => file.split('/')[1];
const show = (e: Edge) => `${e.from}:${e.line} -> ${e.to}`;

export function layerViolations(graph: ModuleGraph): string[] {
  return graph.edges
    .filter((e) => e.to && !isTestSupport(e.from))
    .filter((e) => !MAY_IMPORT[layerOf(e.from)].includes(layerOf(e.to!)) && !ALLOWED_EDGES.has(`${e.from} -> ${e.to}`))
    .map(show);
}

/** Cycles between core areas (core/<area>/...), each shown as the areas in it. */
export function coreAreaCycles(graph: ModuleGraph): string[][] {
  const edges = graph.edges
    .filter((e) => e.to && layerOf(e.from) === 'core' && layerOf(e.to) === 'core' && e.from !== REPOSITORY_AGGREGATE)
    .map((e) => ({ from: areaOf(e.from), to: areaOf(e.to!) }))
    .filter((e) => e.from !== e.to);
  return cyclesOf({ files: [...new Set(graph.files.filter((f) => layerOf(f) === 'core').map(areaOf))], edges });
}

describe('architecture: dependency rules', () => {
  const graph = buildModuleGraph(ROOT, LAYERS);

  it('reads the whole tree', () => {
    for (const layer of LAYERS) expect({ layer, files: graph.files.some((f) => layerOf(f) === layer) }).toEqual({ layer, files: true });
    expect(graph.edges.filter((e) => e.pkg === null && e.to === null).map(show)).toEqual([]); // every relative import resolves
  });

  it('has no import cycles anywhere (type-only imports included)', () => {
    expect(cyclesOf(graph)).toEqual([]);
  });

  it('keeps the core areas free of loops', () => {
    expect(coreAreaCycles(graph)).toEqual([]);
    const aggregate = graph.edges.filter((e) => e.from === REPOSITORY_AGGREGATE && e.to && !e.typeOnly).map(show);
    expect(aggregate).toEqual([]);
  });

  it('lets each layer import only the layers below it: core only core; plugins and the gateway core and their kit; only app/ wires adapters', () => {
    expect(layerViolations(graph)).toEqual([]);
  });

  it('still needs its one allowed edge (delete the entry once the identity signature moves)', () => {
    const used = [...ALLOWED_EDGES].filter((edge) => graph.edges.some((e) => `${e.from} -> ${e.to}` === edge));
    expect(used).toEqual([...ALLOWED_EDGES]);
  });

  describe('the checker itself', () => {
    const graphOf = (edges: [string, string, boolean?][]): ModuleGraph => ({
      files: [...new Set(edges.flatMap(([a, b]) => [a, b]))],
      edges: edges.map(([from, to, typeOnly = false]) => ({ from, to, pkg: null, typeOnly, line: 1 })),
    });

    it('finds a cycle, even through type-only imports', () => {
      expect(
        cyclesOf(
          graphOf([
            ['a.ts', 'b.ts'],
            ['b.ts', 'c.ts', true],
            ['c.ts', 'a.ts'],
            ['c.ts', 'd.ts'],
          ]),
        ),
      ).toEqual([['a.ts', 'b.ts', 'c.ts']]);
      expect(
        cyclesOf(
          graphOf([
            ['a.ts', 'b.ts'],
            ['b.ts', 'c.ts'],
          ]),
        ),
      ).toEqual([]);
    });

    it('finds loops between core areas but not through the repository aggregate', () => {
      expect(
        coreAreaCycles(
          graphOf([
            ['core/chat/x.ts', 'core/conversations/y.ts'],
            ['core/conversations/z.ts', 'core/chat/w.ts'],
          ]),
        ),
      ).toEqual([['chat', 'conversations']]);
      expect(
        coreAreaCycles(
          graphOf([
            ['core/ports/repositories.ts', 'core/agents/agent.ts', true],
            ['core/agents/a.ts', 'core/ports/store.ts'],
          ]),
        ),
      ).toEqual([]);
    });

    it.each([
      ['plugins/sources/_shared/html-page.ts', 'adapters/documents/html.loader.ts'],
      ['gateway/index.ts', 'adapters/http/identity-signature.ts'],
      ['core/agents/x.ts', 'app/services.ts'],
      ['contracts/index.ts', 'plugins/index.ts'],
      ['adapters/http/api-app.ts', 'app/roles.ts'],
      ['bin/platform.ts', 'adapters/postgres/database.ts'],
    ])('refuses %s -> %s', (from, to) => {
      expect(layerViolations(graphOf([[from, to]]))).toHaveLength(1);
    });

    it.each([
      ['gateway/testing/gateway-fixture.ts', 'adapters/memory/in-process.rate-limit-store.ts'],
      ['plugins/sources/rss/index.ts', 'core/sources/source-plugin.ts'],
      ['app/infrastructure.ts', 'adapters/postgres/database.ts'],
      ['contracts/schemas/chat.ts', 'core/chat/chat-limits.ts'],
    ])('allows %s -> %s', (from, to) => {
      expect(layerViolations(graphOf([[from, to]]))).toEqual([]);
    });
  });
});
