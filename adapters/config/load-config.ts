import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join, resolve } from 'node:path';

import Ajv, { type ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import YAML from 'yaml';

import { configSchema } from './config.schema';
import type { PlatformConfig, Role } from './platform-config';
import { securityConfigFrom } from './security-config';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ConfigError';
  }
}

type Env = Record<string, string | undefined>;
type Raw = Record<string, unknown>;
type JsonSchema = Record<string, unknown>;

/**
 * A part of the configuration declared elsewhere: the adapters of each port (their selector and keys) and
 * the secrets plugins declare. Its keys join the one schema, and its problems the one listing.
 */
export interface ConfigSection {
  /** Keys it adds (JSON schema each), given the values read so far (the plugins named in PLUGINS add their secrets). */
  properties(values: Raw): { properties: Record<string, JsonSchema>; problems?: string[] };
  /**
   * Problems the schema cannot express (an unknown adapter id, a key a selected adapter needs), on the
   * validated values; keys in `invalid` already have a schema error.
   */
  check?(values: Raw, invalid: ReadonlySet<string>): string[];
}

const compiled = new Map<string, ValidateFunction>();
function validatorFor(properties: Record<string, unknown>): ValidateFunction {
  const schema = { ...configSchema, properties };
  const key = JSON.stringify(schema);
  let validate = compiled.get(key);
  if (!validate) {
    const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false });
    addFormats(ajv);
    validate = ajv.compile(schema);
    compiled.set(key, validate);
  }
  return validate;
}

/** The whole schema: the platform's keys plus every section's, as with no value read (for docs and deployment checks). */
export function mergedConfigSchema(sections: readonly ConfigSection[] = [], values: Raw = {}) {
  const properties: Record<string, unknown> = { ...configSchema.properties };
  for (const section of sections) Object.assign(properties, section.properties(values).properties);
  return { ...configSchema, properties };
}

function readConfigFile(path: string): Raw {
  const text = readFileSync(path, 'utf8');
  const parsed: unknown = path.endsWith('.json') ? JSON.parse(text) : YAML.parse(text);
  if (!parsed || typeof parsed !== 'object') throw new ConfigError([`CONFIG_FILE ${path} must hold an object of settings`]);
  return Object.fromEntries(Object.entries(parsed as Raw).map(([k, v]) => [k, typeof v === 'object' ? v : String(v)]));
}

/** Secrets a single-machine install may generate once and keep under the data folder; split roles must share them explicitly. */
function embeddedSecrets(dataDir: string): Record<string, string> {
  const file = join(dataDir, 'secrets.json');
  if (existsSync(file)) return JSON.parse(readFileSync(file, 'utf8')) as Record<string, string>;
  mkdirSync(dataDir, { recursive: true });
  const secrets = {
    JWT_SECRET: randomBytes(32).toString('hex'),
    INTERNAL_SECRET: randomBytes(32).toString('hex'),
    WEBHOOK_SIGNING_SECRET: randomBytes(32).toString('hex'),
  };
  writeFileSync(file, JSON.stringify(secrets, null, 2), { mode: 0o600 });
  return secrets;
}

const list = (v: unknown) =>
  String(v ?? '')
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);

/**
 * Validates everything at once (the platform's keys and every section's) and throws one ConfigError listing
 * every problem. `sections` come from the composition root (app/configuration.ts).
 */
export function loadConfig(role: Role, env: Env, sections: readonly ConfigSection[]): PlatformConfig {
  const raw: Raw = {};
  const problems: string[] = [];
  if (env.CONFIG_FILE) {
    try {
      Object.assign(raw, readConfigFile(env.CONFIG_FILE));
    } catch (e) {
      problems.push(e instanceof ConfigError ? e.problems[0] : `CONFIG_FILE ${env.CONFIG_FILE}: ${(e as Error).message}`);
    }
  }
  const given = Object.fromEntries(Object.entries(env).filter(([, v]) => v !== undefined && v !== ''));
  const properties: Record<string, unknown> = { ...configSchema.properties };
  for (const section of sections) {
    const part = section.properties({ ...raw, ...given });
    Object.assign(properties, part.properties);
    problems.push(...(part.problems ?? []));
  }
  for (const [k, v] of Object.entries(given)) if (k in properties) raw[k] = v;

  const validate = validatorFor(properties);
  const invalid = new Set<string>();
  if (!validate(raw)) {
    for (const err of validate.errors ?? []) {
      const key = err.instancePath.replace(/^\//, '') || (err.params as { missingProperty?: string }).missingProperty || 'config';
      if (err.keyword === 'if') continue;
      invalid.add(key);
      problems.push(
        `${key}: ${err.message}${err.keyword === 'enum' ? ` (${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : ''}`,
      );
    }
  }
  for (const section of sections) problems.push(...(section.check?.(raw, invalid) ?? []));
  const split = role !== 'start' && role !== 'migrate';
  for (const key of ['JWT_SECRET', 'INTERNAL_SECRET', 'WEBHOOK_SIGNING_SECRET']) {
    if (split && !raw[key]) problems.push(`${key}: required when roles run separately (${role}); every role must share it`);
  }
  if (raw.HTTP_PROCESSES !== undefined && (raw.HTTP_PROCESSES as number) > 1 && !raw.DATABASE_URL) {
    problems.push('HTTP_PROCESSES: more than 1 needs DATABASE_URL (the embedded database lives in one process)');
  }
  if (role === 'gateway' && !raw.API_URL) problems.push('API_URL: required for the gateway role (where the api role listens)');
  if (problems.length) throw new ConfigError(problems);

  const dataDir = resolve(String(raw.DATA_DIR));
  const secrets = split ? {} : embeddedSecrets(dataDir);
  const s = (k: string) => (raw[k] as string | undefined) ?? secrets[k];
  const port = raw.PORT as number;
  return {
    role,
    gateway: {
      host: raw.HOST as string,
      port,
      trustProxy: raw.TRUST_PROXY as boolean,
      limits: {
        perIp: { limit: raw.RATE_LIMIT_PER_IP as number, windowSeconds: raw.RATE_LIMIT_WINDOW_SECONDS as number },
        perPrincipal: { limit: raw.RATE_LIMIT_PER_PRINCIPAL as number, windowSeconds: raw.RATE_LIMIT_WINDOW_SECONDS as number },
      },
      externalJwt: raw.EXTERNAL_JWT_ISSUER
        ? {
            issuer: raw.EXTERNAL_JWT_ISSUER as string,
            audience: raw.EXTERNAL_JWT_AUDIENCE as string,
            jwksUrl: raw.EXTERNAL_JWT_JWKS_URL as string | undefined,
            emailClaim: raw.EXTERNAL_JWT_EMAIL_CLAIM as string,
          }
        : undefined,
    },
    api: { host: raw.API_HOST as string, port: raw.API_PORT as number, url: raw.API_URL as string | undefined },
    publicUrl: (raw.PUBLIC_URL as string | undefined) ?? `http://127.0.0.1:${port}`,
    appUrl: (raw.APP_URL as string | undefined) ?? (raw.PUBLIC_URL as string | undefined) ?? `http://127.0.0.1:${port}`,
    dataDir,
    databaseUrl: raw.DATABASE_URL as string | undefined,
    httpProcesses: httpProcessesOf(role, raw),
    secrets: { jwt: s('JWT_SECRET'), internal: s('INTERNAL_SECRET'), webhook: s('WEBHOOK_SIGNING_SECRET') },
    models: { defaultChatModel: raw.DEFAULT_CHAT_MODEL as string | undefined, syncUrl: raw.MODEL_SYNC_URL as string | undefined },
    billing: { initialCreditsUsd: raw.INITIAL_CREDITS_USD as number, marginMultiplier: raw.BILLING_MARGIN_MULTIPLIER as number },
    plans: { seats: raw.PLAN_SEATS as number, agents: raw.PLAN_AGENTS as number, knowledgeBases: raw.PLAN_KNOWLEDGE_BASES as number },
    uploads: { maxBytes: raw.UPLOAD_MAX_BYTES as number },
    publicChat: {
      chatPerMinute: raw.PUBLIC_CHAT_PER_MINUTE as number,
      chatPerIpPerMinute: raw.PUBLIC_CHAT_PER_IP_PER_MINUTE as number,
      uploadsPerMinute: raw.PUBLIC_UPLOADS_PER_MINUTE as number,
      uploadsPerIpPerMinute: raw.PUBLIC_UPLOADS_PER_IP_PER_MINUTE as number,
      attachmentMaxBytes: raw.PUBLIC_ATTACHMENT_MAX_BYTES as number,
      workBudget: {
        visitorSeconds: raw.PUBLIC_WORK_SECONDS_PER_VISITOR as number,
        ipSeconds: raw.PUBLIC_WORK_SECONDS_PER_IP as number,
        windowSeconds: raw.PUBLIC_WORK_WINDOW_SECONDS as number,
      },
      presenceStreamsPerVisitor: raw.PUBLIC_PRESENCE_STREAMS_PER_VISITOR as number,
      presenceStreamsPerIp: raw.PUBLIC_PRESENCE_STREAMS_PER_IP as number,
    },
    google: raw.GOOGLE_CLIENT_ID
      ? {
          clientId: raw.GOOGLE_CLIENT_ID as string,
          clientSecret: raw.GOOGLE_CLIENT_SECRET as string,
          issuerUrl: raw.GOOGLE_ISSUER_URL as string,
        }
      : undefined,
    superadminEmails: list(raw.SUPERADMIN_EMAILS).map((e) => e.toLowerCase()),
    outboundAllow: list(raw.OUTBOUND_ALLOW),
    ssoAllowedHosts: list(raw.SSO_ALLOWED_HOSTS),
    outboundCaFile: raw.OUTBOUND_CA_FILE as string | undefined,
    webhooks: { retryBackoffMs: raw.WEBHOOK_RETRY_BACKOFF_MS as number, timeoutMs: raw.WEBHOOK_TIMEOUT_MS as number },
    jobs: { leaseMs: (raw.JOB_LEASE_SECONDS as number) * 1000 },
    provisioning: {
      leaseMs: raw.PROVISIONING_LEASE_MS as number,
      phaseTimeoutMs: raw.PROVISIONING_PHASE_TIMEOUT_MS as number,
      freshForHours: raw.PROVISIONING_FRESH_HOURS as number,
      turnstile: raw.TURNSTILE_SECRET_KEY
        ? { secret: raw.TURNSTILE_SECRET_KEY as string, verifyUrl: raw.TURNSTILE_VERIFY_URL as string }
        : null,
    },
    shutdownGraceMs: raw.SHUTDOWN_GRACE_MS as number,
    logLevel: raw.LOG_LEVEL as PlatformConfig['logLevel'],
    metricsPort: (raw.METRICS_PORT as number | undefined) ?? null,
    tracing: raw.OTEL_EXPORTER_OTLP_ENDPOINT
      ? { endpoint: raw.OTEL_EXPORTER_OTLP_ENDPOINT as string, serviceName: raw.OTEL_SERVICE_NAME as string }
      : null,
    settings: Object.freeze({ ...raw }),
    security: securityConfigFrom(raw),
  };
}

/** Only `start` on a database server forks HTTP replicas: one process per core unless HTTP_PROCESSES says otherwise. */
function httpProcessesOf(role: Role, raw: Record<string, unknown>): number {
  if (role !== 'start' || !raw.DATABASE_URL) return 1;
  return (raw.HTTP_PROCESSES as number | undefined) ?? Math.min(availableParallelism(), 8);
}
