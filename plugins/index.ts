/**
 * The plugins of this platform: the folders under plugins/<kind>s/ plus the npm packages named in
 * configuration (PLUGINS, resolved from PLUGIN_ROOT), registered into one registry per kind. A package may
 * hold plugins of any kind; each declares its `kind`.
 */
import { join } from 'node:path';

import { CHANNEL_KIND_SPEC, type ChannelPlugin } from '../core/channels/channel-plugin';
import type { PluginCatalogue, PluginKind, PluginSecret } from '../core/plugin-contract/plugin-manifest';
import { PluginRegistry } from '../core/plugin-contract/plugin-registry';
import type { SecretSource } from '../core/plugin-contract/plugin-secrets';
import { SourceRegistry } from '../core/sources/source-registry';
import { ajvOptionsValidator } from './kit/ajv-options-validator';
import { discoverFolder, type FoundPlugin, loadPackages } from './kit/discover';

export interface PluginOptions {
  /** npm package names (configuration key PLUGINS). */
  packages?: readonly string[];
  /** Where the packages are resolved from (PLUGIN_ROOT; default the working directory). */
  root?: string;
  /** Extra plugin folders per kind (tests, add-ons). */
  dirs?: Partial<Record<PluginKind, readonly string[]>>;
}

export interface FoundPlugins {
  byKind: Record<PluginKind, FoundPlugin[]>;
  problems: string[];
}

const KIND_DIRS: Record<PluginKind, string> = { source: join(__dirname, 'sources'), channel: join(__dirname, 'channels') };

/** Every plugin candidate of every kind, and the packages that could not be loaded. */
export function findPlugins(options: PluginOptions = {}): FoundPlugins {
  const byKind: Record<PluginKind, FoundPlugin[]> = { source: [], channel: [] };
  for (const kind of Object.keys(byKind) as PluginKind[]) {
    for (const dir of [KIND_DIRS[kind], ...(options.dirs?.[kind] ?? [])]) byKind[kind].push(...discoverFolder(dir, `plugins/${kind}s`));
  }
  const { found, problems } = loadPackages(options.packages ?? [], options.root ?? process.cwd());
  for (const candidate of found) {
    const kind = (candidate.plugin as { kind?: unknown } | null)?.kind;
    if (kind === 'source' || kind === 'channel') byKind[kind].push(candidate);
    else problems.push(`PLUGINS: a plugin of ${candidate.origin} has kind ${JSON.stringify(kind)} (known: source, channel)`);
  }
  return { byKind, problems };
}

/** The secrets every found plugin declares (they become configuration keys). */
export function declaredSecrets(found: FoundPlugins): { secret: PluginSecret; owner: string }[] {
  return Object.values(found.byKind).flatMap((candidates) =>
    candidates.flatMap(({ plugin, origin }) => {
      const secrets = (plugin as { secrets?: unknown } | null)?.secrets;
      const type = String((plugin as { type?: unknown }).type);
      return Array.isArray(secrets) ? (secrets as PluginSecret[]).map((secret) => ({ secret, owner: `${type} (${origin})` })) : [];
    }),
  );
}

/** Channel types (plugins/channels/<type>/ and packages): the channel kind of core/channels/channel-plugin.ts. */
export type ChannelRegistry = PluginRegistry<'channel', ChannelPlugin>;

export interface PluginRegistries {
  sources: SourceRegistry;
  channels: ChannelRegistry;
  /** What the API contract needs: every type with its options schema and capabilities. */
  catalogue(): PluginCatalogue;
}

/** One registry per kind holding every found plugin; throws when a package cannot be loaded or a plugin breaks its contract. */
export function createPluginRegistries(options: PluginOptions & { secrets?: SecretSource } = {}): PluginRegistries {
  const found = findPlugins(options);
  if (found.problems.length) throw new Error(found.problems.join('\n'));
  const sources = new SourceRegistry(ajvOptionsValidator(), options.secrets);
  for (const { plugin, origin } of found.byKind.source) sources.register(plugin, origin);
  const channels: ChannelRegistry = new PluginRegistry('channel', CHANNEL_KIND_SPEC, ajvOptionsValidator(), options.secrets);
  for (const { plugin, origin } of found.byKind.channel) channels.register(plugin, origin);
  return { sources, channels, catalogue: () => ({ sources: sources.descriptors(), channels: channels.descriptors() }) };
}
