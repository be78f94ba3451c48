/**
 * The configuration of this platform: the platform's own keys (adapters/config/config.schema.ts), each port's
 * selector and adapter keys (app/ports) and the secrets plugins declare, validated in one pass that lists
 * every problem at once. Tests load configuration through here, as production does.
 */
import { configSchema } from '../adapters/config/config.schema';
import { type ConfigSection, loadConfig as loadWith, mergedConfigSchema } from '../adapters/config/load-config';

export { ConfigError } from '../adapters/config/load-config';
export type { PlatformConfig, Role } from '../adapters/config/platform-config';
import type { PlatformConfig, Role } from '../adapters/config/platform-config';
import { mergeSettingSchemas } from '../adapters/kit/port-registry';
import { declaredSecrets, findPlugins, type PluginOptions } from '../plugins';
import { platformPorts } from './ports';
import type { PlatformPort } from './ports/platform-port';

/** Each port's selector and its adapters' keys; unknown ids and keys a selected adapter needs are problems. */
export function portsSection(ports: readonly PlatformPort[]): ConfigSection {
  const properties = mergeSettingSchemas(ports.map((p) => p.registry.schemaProperties()));
  return {
    properties: () => ({ properties }),
    check: (values, invalid) => ports.flatMap((p) => (invalid.has(p.registry.key) ? [] : p.registry.select(values).problems)),
  };
}

const list = (v: unknown) =>
  String(v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/** Where plugins come from, by configuration: PLUGINS (npm packages) resolved from PLUGIN_ROOT. */
export const pluginOptions = (settings: Readonly<Record<string, unknown>>): PluginOptions => ({
  packages: list(settings.PLUGINS),
  root: typeof settings.PLUGIN_ROOT === 'string' && settings.PLUGIN_ROOT ? settings.PLUGIN_ROOT : process.cwd(),
});

/**
 * PLUGINS and PLUGIN_ROOT, and the secrets every found plugin declares (each a configuration key only its
 * plugin reads). A package that cannot be loaded, or a secret named like a platform key, is a problem.
 */
export function pluginsSection(reserved: ReadonlySet<string>): ConfigSection {
  return {
    properties(values) {
      const properties: Record<string, Record<string, unknown>> = {
        PLUGINS: { type: 'string', description: 'Comma-separated npm packages holding plugins (source types, channel types)' },
        PLUGIN_ROOT: { type: 'string', description: 'Directory the PLUGINS packages are resolved from (default: the working directory)' },
      };
      const found = findPlugins(pluginOptions(values));
      const problems = [...found.problems];
      for (const { secret, owner } of declaredSecrets(found)) {
        if (typeof secret?.name !== 'string') continue; // the registry reports malformed declarations
        if (reserved.has(secret.name))
          problems.push(`${secret.name}: declared as a secret by the plugin ${owner}, but it is a platform key`);
        else
          properties[secret.name] = {
            type: 'string',
            writeOnly: true,
            description: `${properties[secret.name]?.description ? `${String(properties[secret.name].description)}; ` : ''}secret of the plugin ${owner}: ${secret.description}`,
          };
      }
      return { properties, problems };
    },
  };
}

export function configSections(): ConfigSection[] {
  const ports = portsSection(platformPorts);
  const reserved = new Set([...Object.keys(configSchema.properties), ...Object.keys(ports.properties({}).properties)]);
  return [ports, pluginsSection(reserved)];
}

export function loadConfig(role: Role, env: Record<string, string | undefined> = process.env): PlatformConfig {
  return loadWith(role, env, configSections());
}

/** Every configuration key this build knows, with its schema (deployment checks, docs). */
export const platformConfigSchema = () => mergedConfigSchema(configSections());

/** The adapter ids each port selects with these settings (`{ VECTOR_INDEX: ['pgvector'], ... }`). */
export function selectedAdapters(settings: Readonly<Record<string, unknown>>): Record<string, string[]> {
  return Object.fromEntries(platformPorts.map((p) => [p.registry.key, p.registry.select(settings).ids]));
}
