import { DomainError } from '../shared/errors';
import type { JsonSchema, SourcePlugin } from './source-plugin';

/** Checks options against a plugin's schema (applies defaults); implemented with ajv outside the core. */
export interface OptionsValidator {
  /** Compiles the schema; throws when the schema itself is invalid. */
  compile(
    schema: JsonSchema,
  ): (value: Record<string, unknown>) => { valid: true; value: Record<string, unknown> } | { valid: false; errors: string[] };
}

type CompiledOptions = ReturnType<OptionsValidator['compile']>;

const TYPE_PATTERN = /^[a-z][a-z0-9_-]{0,39}$/;

/**
 * The source types this process knows. Plugins register at boot (see plugins/sources/index.ts); use cases
 * look them up by type or detect the type of a URL.
 */
export class SourceRegistry {
  private readonly plugins = new Map<string, { plugin: SourcePlugin; options: CompiledOptions }>();

  constructor(private readonly validator: OptionsValidator) {}

  register(plugin: SourcePlugin): this {
    if (!TYPE_PATTERN.test(plugin.type ?? '')) throw new Error(`source plugin type "${plugin.type}" must match ${TYPE_PATTERN}`);
    if (this.plugins.has(plugin.type)) throw new Error(`source plugin "${plugin.type}" is registered twice`);
    for (const method of ['recognizes', 'normalize', 'listItems', 'fetchItem'] as const) {
      if (typeof plugin[method] !== 'function') throw new Error(`source plugin "${plugin.type}" has no ${method}()`);
    }
    let options: CompiledOptions;
    try {
      options = this.validator.compile(plugin.optionsSchema);
    } catch (error) {
      throw new Error(`source plugin "${plugin.type}" has an invalid options schema: ${(error as Error).message}`, { cause: error });
    }
    this.plugins.set(plugin.type, { plugin, options });
    return this;
  }

  types(): string[] {
    return [...this.plugins.keys()].sort();
  }

  has(type: string): boolean {
    return this.plugins.has(type);
  }

  /** The plugin of a type, or a VALIDATION error naming the known types. */
  get(type: string): SourcePlugin {
    const entry = this.plugins.get(type);
    if (!entry) throw new DomainError('VALIDATION', `sourceType must be one of: ${this.types().join(', ')}`, { sourceType: type });
    return entry.plugin;
  }

  /** The most specific plugin that recognises the URL (null when none does, e.g. not http/https). */
  detect(url: string): SourcePlugin | null {
    let parsed: URL;
    try {
      parsed = new URL(url);
    } catch {
      return null;
    }
    const ordered = [...this.plugins.values()].map((e) => e.plugin).sort((a, b) => (b.detectPriority ?? 0) - (a.detectPriority ?? 0));
    return ordered.find((p) => safeRecognizes(p, parsed)) ?? null;
  }

  /** Options checked against the plugin's schema, defaults applied; VALIDATION error otherwise. */
  validateOptions(type: string, options: Record<string, unknown>): Record<string, unknown> {
    const entry = this.plugins.get(type);
    if (!entry) return this.get(type) as never;
    const result = entry.options({ ...options });
    if (!result.valid)
      throw new DomainError('VALIDATION', `Invalid options for a ${type} source: ${result.errors.join('; ')}`, { errors: result.errors });
    return result.value;
  }
}

function safeRecognizes(plugin: SourcePlugin, url: URL): boolean {
  try {
    return plugin.recognizes(url);
  } catch {
    return false;
  }
}
