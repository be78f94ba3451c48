/**
 * Source plugins: every folder of plugins/sources (except those starting with `_` or `.`) holds one source
 * type in its `index.ts`, whose default export is the plugin and whose `type` is the folder name. Adding a
 * type is adding a folder; nothing else changes (npm packages named in PLUGINS join them: plugins/index.ts).
 */
import type { SecretSource } from '../../core/plugin-contract/plugin-secrets';
import type { SourcePlugin } from '../../core/sources/source-plugin';
import type { SourceRegistry } from '../../core/sources/source-registry';
import { createPluginRegistries, type PluginOptions } from '..';
import { discoverFolder } from '../kit/discover';

/** The plugins of every plugin folder in `dir`, sorted by folder name (unchecked: registering checks them). */
export function discoverSourcePlugins(dir: string = __dirname): SourcePlugin[] {
  return discoverFolder(dir, 'plugins/sources').map((f) => f.plugin as SourcePlugin);
}

/** A registry holding every source plugin found (plus `dirs` of extra plugin folders, for tests and add-ons). */
export function createSourceRegistry(
  options: { dirs?: string[]; secrets?: SecretSource } & Pick<PluginOptions, 'packages' | 'root'> = {},
): SourceRegistry {
  return createPluginRegistries({ ...options, dirs: { source: options.dirs ?? [] } }).sources;
}
