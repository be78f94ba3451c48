/**
 * Discovery of source plugins: every folder of plugins/sources (except those starting with `_` or `.`)
 * holds one source type in its `index.ts`, whose default export is the plugin and whose `type` is the
 * folder name. Adding a type is adding a folder; nothing else changes.
 */
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import type { SourcePlugin } from '../../core/sources/source-plugin';
import { SourceRegistry } from '../../core/sources/source-registry';
import { ajvOptionsValidator } from './options-validator';

const hasIndex = (folder: string) => ['index.ts', 'index.js'].some((f) => existsSync(join(folder, f)));

/** Loads the plugins of every plugin folder in `dir`, sorted by folder name. */
export function discoverSourcePlugins(dir: string = __dirname): SourcePlugin[] {
  const folders = readdirSync(dir, { withFileTypes: true })
    .filter((e) => e.isDirectory() && !e.name.startsWith('_') && !e.name.startsWith('.') && hasIndex(join(dir, e.name)))
    .map((e) => e.name)
    .sort();
  return folders.map((name) => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(join(dir, name)) as { default?: SourcePlugin; plugin?: SourcePlugin };
    const plugin = mod.default ?? mod.plugin;
    if (!plugin || typeof plugin !== 'object') throw new Error(`plugins/sources/${name}: index must export the plugin as default`);
    if (plugin.type !== name) throw new Error(`plugins/sources/${name}: plugin type "${plugin.type}" must equal its folder name`);
    return plugin;
  });
}

/** A registry holding every discovered plugin (plus `dirs` of extra plugin folders, for tests and add-ons). */
export function createSourceRegistry(options: { dirs?: string[] } = {}): SourceRegistry {
  const registry = new SourceRegistry(ajvOptionsValidator());
  for (const dir of [__dirname, ...(options.dirs ?? [])]) for (const plugin of discoverSourcePlugins(dir)) registry.register(plugin);
  return registry;
}
