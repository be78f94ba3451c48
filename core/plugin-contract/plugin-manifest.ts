/**
 * The closed contract every plugin declares, whatever its kind (source types now, channel types next): its
 * kind and type, what it is, its options schema (JSON schema: validated on every use, and merged into the
 * request validation and OpenAPI document of the endpoints that take it), the secrets it needs (read from
 * configuration by name, handed to it through its context, never logged) and its capabilities. The registry
 * refuses a manifest with anything else, a capability its kind does not define, or a malformed part.
 */
export type JsonSchema = Record<string, unknown>;

export type PluginKind = 'source' | 'channel';

/** What each kind of plugin may declare it can do. */
export const PLUGIN_CAPABILITIES = {
  source: [
    /** Checks a URL when a source is added (has `probe`), so an unreadable one fails the request. */
    'probe',
    /** Claims URLs in type detection (its `recognizes` takes part in `detect`). */
    'detect',
    /** Can be read as a preview by light scrape. */
    'preview',
    /** Can be synced on a schedule (syncEnabled). */
    'schedule',
  ],
  /** Channel types (web, widget, email, whatsapp_business): the channels area defines their behaviour. */
  channel: ['inbound', 'outbound', 'verify'],
} as const satisfies Record<PluginKind, readonly string[]>;

export type PluginCapability<K extends PluginKind> = (typeof PLUGIN_CAPABILITIES)[K][number];

/** A secret a plugin needs, e.g. `NOTION_API_TOKEN`: a configuration key whose value only this plugin sees. */
export interface PluginSecret {
  /** The configuration key (upper snake case). */
  readonly name: string;
  readonly description: string;
  /** Without a value the plugin is registered but unusable (400 naming the key). Default true. */
  readonly required?: boolean;
}

export interface PluginManifest<K extends PluginKind = PluginKind> {
  readonly kind: K;
  /** The type users pass (`notion`); lower case; for a folder plugin, its folder name. */
  readonly type: string;
  readonly description: string;
  /** JSON schema of the options (an object schema; defaults are applied). */
  readonly optionsSchema: JsonSchema;
  readonly secrets?: readonly PluginSecret[];
  readonly capabilities: readonly PluginCapability<K>[];
}

/** The manifest keys every kind shares; a kind adds its own (a source plugin its methods). */
export const MANIFEST_KEYS = ['kind', 'type', 'description', 'optionsSchema', 'secrets', 'capabilities'] as const;

/** What the API contract needs to know of a plugin type (request schemas, OpenAPI, type lists). */
export interface PluginDescriptor {
  kind: PluginKind;
  type: string;
  description: string;
  /** The effective options schema (the kind's common options merged in). */
  optionsSchema: JsonSchema;
  capabilities: readonly string[];
  /** Names of the secrets it declares (never their values). */
  secrets: readonly string[];
  /** False when a required secret has no value: its type is listed but refused. */
  available: boolean;
}

/** Every plugin type the platform knows, by kind (given to contracts/ to build the operations). */
export interface PluginCatalogue {
  sources: readonly PluginDescriptor[];
  channels: readonly PluginDescriptor[];
}
