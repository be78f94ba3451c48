import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';

import { moduleReferences } from './module-references';

/** One import of one file: to another file of the tree (`to`) or to a package (`pkg`). */
export interface Edge {
  from: string;
  to: string | null;
  pkg: string | null;
  typeOnly: boolean;
  line: number;
}

export interface ModuleGraph {
  files: string[];
  edges: Edge[];
}

const isTest = (name: string) => /\.(test|spec)\.[cm]?tsx?$/.test(name);

function sourceFiles(root: string, dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    const path = join(dir, e.name);
    if (e.isDirectory()) return e.name === 'node_modules' ? [] : sourceFiles(root, path);
    return /\.ts$/.test(e.name) && !e.name.endsWith('.d.ts') && !isTest(e.name) ? [relative(root, path).split(sep).join('/')] : [];
  });
}

function resolveFile(root: string, fromFile: string, specifier: string): string | null {
  const base = resolve(root, dirname(fromFile), specifier);
  for (const candidate of [base, `${base}.ts`, join(base, 'index.ts')]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return relative(root, candidate).split(sep).join('/');
  }
  return null;
}

/** Every import (static, dynamic, require, type-only) of the production files under `dirs` of `root`. */
export function buildModuleGraph(root: string, dirs: readonly string[]): ModuleGraph {
  const files = dirs.flatMap((d) => (existsSync(join(root, d)) ? sourceFiles(root, join(root, d)) : []));
  const edges: Edge[] = [];
  for (const file of files) {
    for (const ref of moduleReferences(file, readFileSync(join(root, file), 'utf8'))) {
      if (ref.specifier === null || ref.kind === 'reference-directive') continue;
      const relativeSpec = ref.specifier.startsWith('.');
      edges.push({
        from: file,
        to: relativeSpec ? resolveFile(root, file, ref.specifier) : null,
        pkg: relativeSpec ? null : ref.specifier,
        typeOnly: ref.typeOnly,
        line: ref.line,
      });
    }
  }
  return { files, edges };
}

/** Strongly connected components with more than one file (or a file importing itself): the import cycles. */
export function cyclesOf(graph: { files: string[]; edges: { from: string; to: string | null }[] }): string[][] {
  const next = new Map<string, string[]>(graph.files.map((f) => [f, []]));
  for (const e of graph.edges) if (e.to && next.has(e.to)) next.get(e.from)?.push(e.to);
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const visit = (v: string) => {
    index.set(v, counter);
    low.set(v, counter++);
    stack.push(v);
    onStack.add(v);
    for (const w of next.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || (next.get(v) ?? []).includes(v)) cycles.push(component.sort());
    }
  };
  for (const f of graph.files) if (!index.has(f)) visit(f);
  return cycles;
}
