/**
 * Finding plugins: every folder of a kind's directory (plugins/sources/<type>/, later plugins/channels/<type>/)
 * and the npm packages named in configuration (PLUGINS). A found plugin is only a candidate: the kind's
 * registry checks its contract when it registers it.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

export interface FoundPlugin {
  plugin: unknown;
  /** Where it came from, for error messages: `plugins/sources/rss`, `npm:@acme/notion-source`. */
  origin: string;
}

const hasIndex = (folder: string) => ['index.ts', 'index.js'].some((f) => existsSync(join(folder, f)));

type ModuleExports = { default?: unknown; plugin?: unknown; plugins?: unknown };

/**
 * The plugins of `dir`: one per subfolder with an index (folders starting with `_` or `.` hold shared helpers),
 * sorted by folder name; the index's default export is the plugin and its `type` is the folder name.
 */
export function discoverFolder(dir: string, label = dir): FoundPlugin[] {
  if (!existsSync(dir)) return [];
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('_') && !e.name.startsWith('.') && hasIndex(join(dir, e.name)))
    .map((e) => e.name)
    .sort();
  return folders.map((name) => {
    // A plugin folder is found at run time, so it is required by path (a static import cannot name it).
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(join(dir, name)) as ModuleExports;
    const plugin = mod.default ?? mod.plugin;
    if (!plugin || typeof plugin !== 'object') throw new Error(`${label}/${name}: index must export the plugin as default`);
    const type = (plugin as { type?: unknown }).type;
    if (type !== name) throw new Error(`${label}/${name}: plugin type "${String(type)}" must equal its folder name`);
    return { plugin, origin: `${label}/${name}` };
  });
}

/**
 * The plugins of npm packages, resolved from `root` as Node resolves them (its node_modules, then the parents').
 * A package exports one plugin or a list (default export, `plugin` or `plugins`). A package that cannot be
 * loaded is a problem, listed with the other configuration problems.
 */
export function loadPackages(names: readonly string[], root: string): { found: FoundPlugin[]; problems: string[] } {
  const found: FoundPlugin[] = [];
  const problems: string[] = [];
  for (const name of names) {
    let mod: ModuleExports;
    try {
      const path = require.resolve(name, { paths: [root] });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      mod = require(path) as ModuleExports;
    } catch (error) {
      problems.push(`PLUGINS: cannot load the package ${name} from ${root}: ${(error as Error).message.split('\n')[0]}`);
      continue;
    }
    const exported = mod.default ?? mod.plugins ?? mod.plugin ?? mod;
    const plugins = Array.isArray(exported) ? exported : [exported];
    if (plugins.length === 0) problems.push(`PLUGINS: the package ${name} exports no plugin`);
    for (const plugin of plugins) found.push({ plugin, origin: `npm:${name}` });
  }
  return { found, problems };
}
