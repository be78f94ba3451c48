/**
 * Secrets handed to a plugin: only those it declared, read by name from the configuration. Their values
 * never reach logs or stored errors: everything a plugin says goes through `redact`.
 */
import { DomainError, isDomainError } from '../shared/errors';
import type { PluginManifest } from './plugin-manifest';

export interface PluginSecrets {
  /** The value of a declared secret, or undefined when it is not configured. */
  get(name: string): string | undefined;
  /** The value of a declared secret; a clear error when it is not configured. */
  getRequired(name: string): string;
}

/** Reads configuration values by key. */
export type SecretSource = (name: string) => string | undefined;

export const REDACTED = '[redacted]';
/** Values shorter than this are not redacted (they would blank out ordinary words). */
const MIN_REDACTED_LENGTH = 4;

export function pluginSecrets(manifest: PluginManifest, source: SecretSource): PluginSecrets {
  const declared = new Set((manifest.secrets ?? []).map((s) => s.name));
  const get = (name: string) => {
    if (!declared.has(name)) throw new Error(`${manifest.kind} plugin "${manifest.type}" reads ${name}, which it does not declare`);
    const value = source(name);
    return value === undefined || value === '' ? undefined : value;
  };
  return {
    get,
    getRequired(name) {
      const value = get(name);
      if (value === undefined)
        throw new DomainError(
          'VALIDATION',
          `The ${manifest.type} ${manifest.kind} type is not configured on this platform: ${name} is not set`,
        );
      return value;
    },
  };
}

/** The configured values of the plugin's secrets (what must never be shown). */
export const secretValues = (manifest: PluginManifest, source: SecretSource): string[] =>
  (manifest.secrets ?? []).map((s) => source(s.name)).filter((v): v is string => typeof v === 'string' && v.length >= MIN_REDACTED_LENGTH);

export function redact(text: string, values: readonly string[]): string {
  let out = text;
  for (const value of values) out = out.split(value).join(REDACTED);
  return out;
}

/** Any value (a log extra, error details) with the secrets replaced, through JSON. */
export function redactValue(value: unknown, values: readonly string[]): unknown {
  if (values.length === 0 || value === undefined) return value;
  if (value instanceof Error) return redactError(value, values);
  try {
    return JSON.parse(redact(JSON.stringify(value), values)) as unknown;
  } catch {
    return REDACTED;
  }
}

/** The error with the secrets taken out of its message and details (a DomainError keeps its code). */
export function redactError(error: unknown, values: readonly string[]): unknown {
  if (values.length === 0) return error;
  if (isDomainError(error)) return new DomainError(error.code, redact(error.message, values), redactValue(error.details, values));
  if (error instanceof Error) {
    const copy = new Error(redact(error.message, values));
    copy.name = error.name;
    return copy;
  }
  return typeof error === 'string' ? redact(error, values) : error;
}
