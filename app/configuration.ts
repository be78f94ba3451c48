/**
 * The configuration of this platform: the platform's own keys (adapters/config/config.schema.ts), each port's
 * selector and adapter keys (app/ports) and the secrets plugins declare, validated in one pass that lists
 * every problem at once. Tests load configuration through here, as production does.
 */
import { type ConfigSection, loadConfig as loadWith, mergedConfigSchema } from '../adapters/config/load-config';
import type { PlatformConfig, Role } from '../adapters/config/platform-config';
import { mergeSettingSchemas } from '../adapters/kit/port-registry';
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

export const configSections = (): ConfigSection[] => [portsSection(platformPorts)];

export function loadConfig(role: Role, env: Record<string, string | undefined> = process.env): PlatformConfig {
  return loadWith(role, env, configSections());
}

/** Every configuration key this build knows, with its schema (deployment checks, docs). */
export const platformConfigSchema = () => mergedConfigSchema(configSections());

/** The adapter ids each port selects with these settings (`{ VECTOR_INDEX: ['pgvector'], ... }`). */
export function selectedAdapters(settings: Readonly<Record<string, unknown>>): Record<string, string[]> {
  return Object.fromEntries(platformPorts.map((p) => [p.registry.key, p.registry.select(settings).ids]));
}
