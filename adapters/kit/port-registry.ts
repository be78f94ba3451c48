/**
 * One registry per port: the configuration key that picks an adapter (`VECTOR_INDEX`), the adapters that can
 * serve it, and the selection rules. A port's registry is one declaration (see app/ports/); adding an adapter
 * is its folder plus one entry in `adapters`. Unknown ids fail at boot listing the known ones.
 */
import type { AdapterContext, AdapterDefinition, Settings, SettingSchema } from './adapter-definition';

export interface PortDefinition<T, D extends AdapterDefinition<T> = AdapterDefinition<T>> {
  /** The configuration key that names the adapter(s): `VECTOR_INDEX`, `CHAT_PROVIDERS`. */
  readonly key: string;
  /** What the port does, for the configuration schema and the docs. */
  readonly description: string;
  /** The DI token the composition root binds the selected adapter under (`VECTOR_INDEX` of core/ports). */
  readonly token?: symbol;
  /** A comma-separated list selects several adapters at once (chat providers, routed by model id). */
  readonly multiple?: boolean;
  readonly adapters: readonly D[];
}

export interface Selection {
  ids: string[];
  problems: string[];
}

const ID = /^[a-z][a-z0-9-]{0,39}$/;
const KEY = /^[A-Z][A-Z0-9_]*$/;

/** Stable text of a schema, to tell two declarations of one shared key apart. */
const canonical = (value: unknown): string =>
  JSON.stringify(value, (_k, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => a.localeCompare(b)))
      : v,
  );

const present = (settings: Settings, key: string) => settings[key] !== undefined && settings[key] !== '';

export class PortRegistry<T, D extends AdapterDefinition<T> = AdapterDefinition<T>> {
  constructor(readonly definition: PortDefinition<T, D>) {
    const { key, adapters } = definition;
    if (!KEY.test(key)) throw new Error(`port key "${key}" must be an upper-case configuration key`);
    if (adapters.length === 0) throw new Error(`port ${key} has no adapter`);
    const seen = new Set<string>();
    for (const a of adapters) {
      if (!ID.test(a.id)) throw new Error(`${key}: adapter id "${a.id}" must match ${ID}`);
      if (seen.has(a.id)) throw new Error(`${key}: adapter "${a.id}" is registered twice`);
      seen.add(a.id);
      if (typeof a.create !== 'function') throw new Error(`${key}: adapter "${a.id}" has no create()`);
      for (const k of [...(a.requires ?? []), ...(a.selectedWhen ?? [])])
        if (!a.settings?.[k]) throw new Error(`${key}: adapter "${a.id}" names ${k} without declaring it in settings`);
    }
    if (!definition.multiple && !adapters.some((a) => a.selectedWhen?.length === 0))
      throw new Error(`port ${key} needs a default: one adapter with selectedWhen: []`);
  }

  get key(): string {
    return this.definition.key;
  }

  ids(): string[] {
    return this.definition.adapters.map((a) => a.id);
  }

  adapter(id: string): D | undefined {
    return this.definition.adapters.find((a) => a.id === id);
  }

  /** The selector key plus every adapter's keys, as JSON schema properties. */
  schemaProperties(): Record<string, SettingSchema> {
    const ids = this.ids();
    const selector: SettingSchema = this.definition.multiple
      ? {
          type: 'string',
          pattern: '^\\s*[a-z][a-z0-9-]*(\\s*,\\s*[a-z][a-z0-9-]*)*\\s*$',
          description: `${this.definition.description}: comma-separated, any of ${ids.join(', ')} (default: those whose keys are set)`,
        }
      : { type: 'string', enum: ids, description: `${this.definition.description}: one of ${ids.join(', ')}` };
    return mergeSettingSchemas([{ [this.key]: selector }, ...this.definition.adapters.map((a) => ({ ...a.settings }))], this.key);
  }

  /**
   * The adapters selected by validated settings: the named ones, else the first (or, for lists, every)
   * adapter whose `selectedWhen` keys are set. Problems name unknown ids with the known ones, and keys a
   * selected adapter requires.
   */
  select(settings: Settings): Selection {
    const named = present(settings, this.key)
      ? String(settings[this.key])
          .split(',')
          .map((s) => s.trim())
          .filter(Boolean)
      : null;
    const problems: string[] = [];
    let ids: string[];
    if (named) {
      const unknown = named.filter((id) => !this.adapter(id));
      if (unknown.length)
        problems.push(`${this.key}: unknown ${unknown.map((u) => `"${u}"`).join(', ')} (known: ${this.ids().join(', ')})`);
      ids = [...new Set(named.filter((id) => this.adapter(id)))];
    } else {
      const auto = this.definition.adapters.filter((a) => a.selectedWhen && a.selectedWhen.every((k) => present(settings, k)));
      ids = (this.definition.multiple ? auto : auto.slice(0, 1)).map((a) => a.id);
    }
    for (const id of ids) {
      for (const k of this.adapter(id)?.requires ?? []) {
        if (!present(settings, k)) problems.push(`${k}: required when ${this.key} ${this.definition.multiple ? 'includes' : 'is'} ${id}`);
      }
    }
    return { ids, problems };
  }

  /** Creates the selected adapters, in selection order (throws on a problem: loadConfig reports them first). */
  async create(settings: Settings, context: AdapterContext): Promise<{ definition: D; instance: T }[]> {
    const { ids, problems } = this.select(settings);
    if (problems.length) throw new Error(problems.join('; '));
    const out: { definition: D; instance: T }[] = [];
    for (const id of ids) {
      const definition = this.adapter(id)!;
      out.push({ definition, instance: await definition.create(settings, context) });
    }
    return out;
  }

  /** The one selected adapter of a single-choice port. */
  async createOne(settings: Settings, context: AdapterContext): Promise<{ definition: D; instance: T }> {
    const [one] = await this.create(settings, context);
    if (!one) throw new Error(`${this.key}: no adapter selected`);
    return one;
  }
}

export const definePort = <T, D extends AdapterDefinition<T> = AdapterDefinition<T>>(definition: PortDefinition<T, D>) =>
  new PortRegistry<T, D>(definition);

/** Merges schema properties; one key declared twice must be declared alike (one meaning per key). */
export function mergeSettingSchemas(parts: Record<string, SettingSchema>[], where = 'configuration'): Record<string, SettingSchema> {
  const merged: Record<string, SettingSchema> = {};
  for (const part of parts) {
    for (const [key, schema] of Object.entries(part)) {
      if (merged[key] && canonical(merged[key]) !== canonical(schema))
        throw new Error(`${where}: ${key} is declared twice with different schemas`);
      merged[key] = schema;
    }
  }
  return merged;
}
