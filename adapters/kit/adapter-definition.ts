/**
 * What an adapter declares about itself (docs/CONVENTIONS.md, after Medusa's module providers): its
 * id, the configuration keys it reads with their JSON schemas (merged into the one configuration schema, so
 * every problem is listed at boot), which keys it needs once selected, when it is picked without being named,
 * and a factory that imports its SDK only when it runs. A declaration imports no SDK itself.
 */
import type { Database } from '../postgres/database';

export type SettingSchema = Readonly<Record<string, unknown>>;
/** Validated configuration values by key (defaults applied). */
export type Settings = Readonly<Record<string, unknown>>;
export type AdapterLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;

/** What a factory may use besides its settings. */
export interface AdapterContext {
  dataDir: string;
  log: AdapterLog;
  /** The relational store's connection, for adapters living in the same Postgres (pgvector, graph tables). */
  db: Database;
}

export interface AdapterDefinition<T> {
  /** The value of the port's configuration key that selects it (`elasticsearch`). */
  readonly id: string;
  readonly description: string;
  /** Configuration keys it reads, each with its JSON schema. Keys shared by adapters must be declared alike. */
  readonly settings?: Readonly<Record<string, SettingSchema>>;
  /** Keys that must be set when it is selected (a boot error names them otherwise). */
  readonly requires?: readonly string[];
  /**
   * Picked without being named when all these keys are set (`[]`: always); never when absent. The first
   * match in the port's adapter order wins, so existing keys keep working (`RABBITMQ_URL` alone picks RabbitMQ).
   */
  readonly selectedWhen?: readonly string[];
  /** Builds the adapter. Import the SDK here (`await import(...)`) so an unselected SDK is never loaded. */
  create(settings: Settings, context: AdapterContext): Promise<T>;
}

/** Identity helper that types a declaration (plus what its port asks of adapters, `X`). */
export const defineAdapter = <T, X extends object = object>(definition: AdapterDefinition<T> & X): AdapterDefinition<T> & X => definition;

/** Typed reads of validated settings (the schema already checked the type). */
export const setting = {
  string: (s: Settings, key: string): string | undefined => (typeof s[key] === 'string' && s[key] !== '' ? (s[key] as string) : undefined),
  requiredString(s: Settings, key: string): string {
    const value = setting.string(s, key);
    if (value === undefined) throw new Error(`${key} is not set`);
    return value;
  },
  boolean: (s: Settings, key: string): boolean | undefined => (typeof s[key] === 'boolean' ? (s[key] as boolean) : undefined),
  number: (s: Settings, key: string): number | undefined => (typeof s[key] === 'number' ? (s[key] as number) : undefined),
  list: (s: Settings, key: string): string[] =>
    String(s[key] ?? '')
      .split(',')
      .map((v) => v.trim())
      .filter(Boolean),
};
