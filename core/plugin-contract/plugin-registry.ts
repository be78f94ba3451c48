/**
 * The plugins of one kind this process knows. Registration checks the closed contract (plugin-manifest.ts)
 * and compiles the options schema with the kind's common options merged in; lookups hand out a guarded
 * plugin whose errors have its secrets taken out. Discovery (folders, npm packages) lives in plugins/.
 */
import { DomainError, isDomainError } from '../shared/errors';
import {
  type JsonSchema,
  MANIFEST_KEYS,
  PLUGIN_CAPABILITIES,
  type PluginDescriptor,
  type PluginKind,
  type PluginManifest,
} from './plugin-manifest';
import { type PluginSecrets, pluginSecrets, redact, redactError, redactValue, type SecretSource, secretValues } from './plugin-secrets';

/** Checks options against a schema (applies defaults); implemented with ajv outside the core. */
export interface OptionsValidator {
  /** Compiles the schema; throws when the schema itself is invalid. */
  compile(
    schema: JsonSchema,
  ): (value: Record<string, unknown>) => { valid: true; value: Record<string, unknown> } | { valid: false; errors: string[] };
}
type CompiledOptions = ReturnType<OptionsValidator['compile']>;

/** What a kind adds to the common manifest. */
export interface PluginKindSpec {
  /** Methods every plugin of the kind implements. */
  methods: readonly string[];
  /** Other members a plugin of the kind may declare (optional methods, tuning values). */
  optional: readonly string[];
  /** Options every plugin of the kind accepts (merged under its own). */
  commonOptions: Readonly<Record<string, JsonSchema>>;
  /** Further rules of the kind (a capability that needs a method...). */
  check?(plugin: Record<string, unknown>): string[];
}

interface Entry<P> {
  plugin: P;
  guarded: P;
  origin: string;
  schema: JsonSchema;
  options: CompiledOptions;
}

/** Codes a plugin may give its errors (as DomainError, or any Error with a `code`): how the platform answers them. */
export const PLUGIN_ERROR_CODES = [
  'UNSUPPORTED_URL',
  'UPSTREAM_FAILED',
  'STORE_THROTTLED',
  'RATE_LIMITED',
  'NOT_FOUND',
  'VALIDATION',
] as const;

function asDomainError(e: unknown): unknown {
  if (isDomainError(e) || !(e instanceof Error)) return e;
  const code = (e as { code?: unknown }).code;
  return (PLUGIN_ERROR_CODES as readonly unknown[]).includes(code)
    ? new DomainError(code as (typeof PLUGIN_ERROR_CODES)[number], e.message, (e as { details?: unknown }).details)
    : e;
}

const TYPE_PATTERN = /^[a-z][a-z0-9_-]{0,39}$/;
const SECRET_NAME = /^[A-Z][A-Z0-9_]{1,63}$/;

export class PluginRegistry<K extends PluginKind, P extends PluginManifest<K>> {
  private readonly entries = new Map<string, Entry<P>>();

  constructor(
    readonly kind: K,
    private readonly spec: PluginKindSpec,
    private readonly validator: OptionsValidator,
    private readonly secretSource: SecretSource = () => undefined,
  ) {}

  /** Registers a plugin from `origin` (its folder or npm package); throws one error listing every problem. */
  register(candidate: unknown, origin: string): this {
    const problems = this.problemsOf(candidate);
    const plugin = candidate as P;
    const schema = this.effectiveSchema(plugin);
    let options: CompiledOptions | undefined;
    if (problems.length === 0) {
      try {
        options = this.validator.compile(schema);
      } catch (error) {
        problems.push(`has an invalid options schema: ${(error as Error).message}`);
      }
    }
    const name = typeof plugin?.type === 'string' ? plugin.type : '?';
    if (problems.length || !options) throw new Error(`${this.kind} plugin "${name}" (${origin}) ${problems.join('; ')}`);
    this.entries.set(plugin.type, { plugin, guarded: this.guard(plugin), origin, schema, options });
    return this;
  }

  types(): string[] {
    return [...this.entries.keys()].sort();
  }

  has(type: string): boolean {
    return this.entries.has(type);
  }

  /** The plugin of a type (its errors redacted), or a VALIDATION error naming the known types. */
  get(type: string): P {
    return this.entry(type).guarded;
  }

  /** Where a type was registered from (`plugins/sources/url`, `npm:@acme/plugin`). */
  origin(type: string): string {
    return this.entry(type).origin;
  }

  /** Every registered plugin, sorted by type (guarded). */
  all(): P[] {
    return this.types().map((t) => this.entry(t).guarded);
  }

  /** Options checked against the plugin's schema, defaults applied; VALIDATION error otherwise. */
  validateOptions(type: string, options: Record<string, unknown>): Record<string, unknown> {
    const result = this.entry(type).options({ ...options });
    if (!result.valid)
      throw new DomainError('VALIDATION', `Invalid options for a ${type} ${this.kind}: ${result.errors.join('; ')}`, {
        errors: result.errors,
      });
    return result.value;
  }

  /** The secrets a plugin declared, read from configuration. */
  secrets(type: string): PluginSecrets {
    return pluginSecrets(this.entry(type).plugin, this.secretSource);
  }

  /** Required secrets without a value. */
  missingSecrets(type: string): string[] {
    return (this.entry(type).plugin.secrets ?? []).filter((s) => s.required !== false && !this.secretSource(s.name)).map((s) => s.name);
  }

  /** The plugin, when every required secret is configured; a VALIDATION error naming the missing keys otherwise. */
  usable(type: string): P {
    const missing = this.missingSecrets(type);
    if (missing.length)
      throw new DomainError(
        'VALIDATION',
        `The ${type} ${this.kind} type is not configured on this platform: ${missing.join(', ')} not set`,
        {
          [`${this.kind}Type`]: type,
          missing,
        },
      );
    return this.get(type);
  }

  /** Takes the plugin's secret values out of texts and values (log lines and their details). */
  redactor(type: string): { text(text: string): string; value(value: unknown): unknown } {
    const values = secretValues(this.entry(type).plugin, this.secretSource);
    return { text: (text) => redact(text, values), value: (value) => redactValue(value, values) };
  }

  descriptors(): PluginDescriptor[] {
    return this.types().map((type) => {
      const { plugin, schema } = this.entry(type);
      return {
        kind: this.kind,
        type,
        description: plugin.description,
        optionsSchema: schema,
        capabilities: [...plugin.capabilities],
        secrets: (plugin.secrets ?? []).map((s) => s.name),
        available: this.missingSecrets(type).length === 0,
      };
    });
  }

  protected entry(type: string): Entry<P> {
    const entry = this.entries.get(type);
    if (!entry)
      throw new DomainError('VALIDATION', `${this.kind}Type must be one of: ${this.types().join(', ')}`, { [`${this.kind}Type`]: type });
    return entry;
  }

  private effectiveSchema(plugin: P): JsonSchema {
    const own = (plugin?.optionsSchema ?? {}) as { properties?: Record<string, JsonSchema> };
    return { ...own, type: 'object', properties: { ...this.spec.commonOptions, ...own.properties }, additionalProperties: false };
  }

  private problemsOf(candidate: unknown): string[] {
    if (!candidate || typeof candidate !== 'object') return ['is not an object'];
    const p = candidate as Record<string, unknown>;
    const problems: string[] = [];
    const allowed = new Set<string>([...MANIFEST_KEYS, ...this.spec.methods, ...this.spec.optional]);
    const unknown = Object.keys(p).filter((k) => !allowed.has(k));
    if (unknown.length) problems.push(`declares ${unknown.join(', ')}, which the ${this.kind} contract does not have`);
    if (p.kind !== this.kind) problems.push(`has kind ${JSON.stringify(p.kind)}, not "${this.kind}"`);
    if (typeof p.type !== 'string' || !TYPE_PATTERN.test(p.type)) problems.push(`type must match ${TYPE_PATTERN}`);
    else if (this.entries.has(p.type)) problems.push(`is registered twice (also from ${this.entries.get(p.type)!.origin})`);
    if (typeof p.description !== 'string' || !p.description.trim()) problems.push('needs a description');
    const schema = p.optionsSchema as { type?: unknown; properties?: unknown } | undefined;
    if (!schema || typeof schema !== 'object' || (schema.type !== undefined && schema.type !== 'object'))
      problems.push('optionsSchema must be an object schema');
    problems.push(...this.secretProblems(p.secrets));
    const known: readonly string[] = PLUGIN_CAPABILITIES[this.kind];
    const caps = p.capabilities;
    if (!Array.isArray(caps)) problems.push(`capabilities must list some of ${known.join(', ')}`);
    else {
      const bad = caps.filter((c) => !known.includes(String(c)));
      if (bad.length) problems.push(`has capabilities ${bad.join(', ')} (known: ${known.join(', ')})`);
      if (new Set(caps).size !== caps.length) problems.push('lists a capability twice');
    }
    for (const method of this.spec.methods) if (typeof p[method] !== 'function') problems.push(`has no ${method}()`);
    if (problems.length === 0) problems.push(...(this.spec.check?.(p) ?? []));
    return problems;
  }

  private secretProblems(secrets: unknown): string[] {
    if (secrets === undefined) return [];
    if (!Array.isArray(secrets)) return ['secrets must be a list of {name, description}'];
    const problems: string[] = [];
    const names = new Set<string>();
    for (const s of secrets as { name?: unknown; description?: unknown; required?: unknown }[]) {
      if (typeof s?.name !== 'string' || !SECRET_NAME.test(s.name))
        problems.push(`secret name ${JSON.stringify(s?.name)} must match ${SECRET_NAME}`);
      else if (names.has(s.name)) problems.push(`declares the secret ${s.name} twice`);
      else names.add(s.name);
      if (typeof s?.description !== 'string' || !s.description.trim()) problems.push(`secret ${String(s?.name)} needs a description`);
      if (s?.required !== undefined && typeof s.required !== 'boolean')
        problems.push(`secret ${String(s?.name)}: required must be a boolean`);
    }
    return problems;
  }

  /**
   * The plugin with every method's errors redacted (its secrets never reach a response, a log or the store),
   * and plugin errors made domain errors: a plugin outside this repository (an npm package) cannot import
   * DomainError, so an Error whose `code` is one of PLUGIN_ERROR_CODES counts as one.
   */
  private guard(plugin: P): P {
    const values = () => secretValues(plugin, this.secretSource);
    const settle = (e: unknown) => redactError(asDomainError(e), values());
    const guarded: Record<string, unknown> = { ...(plugin as object) };
    for (const [key, member] of Object.entries(plugin)) {
      if (typeof member !== 'function') continue;
      const fn = member as (...args: unknown[]) => unknown;
      guarded[key] = (...args: unknown[]) => {
        try {
          const result = fn.apply(plugin, args);
          return result instanceof Promise ? result.catch((e: unknown) => Promise.reject(settle(e))) : result;
        } catch (e) {
          throw settle(e);
        }
      };
    }
    return Object.freeze(guarded) as P;
  }
}
