import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import Ajv from 'ajv';
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

const ajv = new Ajv({ allErrors: true, coerceTypes: true, useDefaults: true, strict: false });
addFormats(ajv);
const validate = ajv.compile(configSchema);

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

/** Validates everything at once and throws one ConfigError listing every problem. */
export function loadConfig(role: Role, env: Env = process.env): PlatformConfig {
  const raw: Raw = {};
  const problems: string[] = [];
  if (env.CONFIG_FILE) {
    try {
      Object.assign(raw, readConfigFile(env.CONFIG_FILE));
    } catch (e) {
      problems.push(e instanceof ConfigError ? e.problems[0] : `CONFIG_FILE ${env.CONFIG_FILE}: ${(e as Error).message}`);
    }
  }
  for (const [k, v] of Object.entries(env)) if (v !== undefined && v !== '' && k in configSchema.properties) raw[k] = v;

  if (!validate(raw)) {
    for (const err of validate.errors ?? []) {
      const key = err.instancePath.replace(/^\//, '') || (err.params as { missingProperty?: string }).missingProperty || 'config';
      if (err.keyword === 'if') continue;
      problems.push(
        `${key}: ${err.message}${err.keyword === 'enum' ? ` (${(err.params as { allowedValues: unknown[] }).allowedValues.join(', ')})` : ''}`,
      );
    }
  }
  const split = role !== 'start' && role !== 'migrate';
  for (const key of ['JWT_SECRET', 'INTERNAL_SECRET', 'WEBHOOK_SIGNING_SECRET']) {
    if (split && !raw[key]) problems.push(`${key}: required when roles run separately (${role}); every role must share it`);
  }
  if (role === 'gateway' && !raw.API_URL) problems.push('API_URL: required for the gateway role (where the api role listens)');
  if (problems.length) throw new ConfigError(problems);

  const dataDir = resolve(String(raw.DATA_DIR));
  const secrets = split ? {} : embeddedSecrets(dataDir);
  const s = (k: string) => (raw[k] as string | undefined) ?? secrets[k];
  const port = raw.PORT as number;
  const openaiKey = raw.OPENAI_API_KEY as string | undefined;
  const cohereKey = raw.COHERE_API_KEY as string | undefined;
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
    },
    api: { host: raw.API_HOST as string, port: raw.API_PORT as number, url: raw.API_URL as string | undefined },
    publicUrl: (raw.PUBLIC_URL as string | undefined) ?? `http://127.0.0.1:${port}`,
    appUrl: (raw.APP_URL as string | undefined) ?? (raw.PUBLIC_URL as string | undefined) ?? `http://127.0.0.1:${port}`,
    dataDir,
    databaseUrl: raw.DATABASE_URL as string | undefined,
    secrets: { jwt: s('JWT_SECRET'), internal: s('INTERNAL_SECRET'), webhook: s('WEBHOOK_SIGNING_SECRET') },
    redisUrl: raw.REDIS_URL as string | undefined,
    rabbitmq: raw.RABBITMQ_URL ? { url: raw.RABBITMQ_URL as string, prefix: raw.QUEUE_PREFIX as string } : undefined,
    blob:
      raw.BLOB_STORE === 's3'
        ? {
            driver: 's3',
            bucket: raw.S3_BUCKET as string,
            region: raw.S3_REGION as string,
            endpoint: raw.S3_ENDPOINT as string | undefined,
            forcePathStyle: raw.S3_FORCE_PATH_STYLE as boolean,
            accessKeyId: raw.S3_ACCESS_KEY_ID as string | undefined,
            secretAccessKey: raw.S3_SECRET_ACCESS_KEY as string | undefined,
          }
        : { driver: 'local' },
    vectorIndex:
      raw.VECTOR_INDEX === 'elasticsearch' ? { driver: 'elasticsearch', url: raw.ELASTICSEARCH_URL as string } : { driver: 'pgvector' },
    providers: {
      openai: openaiKey ? { apiKey: openaiKey, baseURL: raw.OPENAI_BASE_URL as string | undefined } : undefined,
      cohere: cohereKey ? { apiKey: cohereKey, baseURL: raw.COHERE_BASE_URL as string | undefined } : undefined,
    },
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
    },
    google: raw.GOOGLE_CLIENT_ID
      ? {
          clientId: raw.GOOGLE_CLIENT_ID as string,
          clientSecret: raw.GOOGLE_CLIENT_SECRET as string,
          authUrl: raw.GOOGLE_AUTH_URL as string,
          tokenUrl: raw.GOOGLE_TOKEN_URL as string,
          userInfoUrl: raw.GOOGLE_USERINFO_URL as string,
        }
      : undefined,
    superadminEmails: list(raw.SUPERADMIN_EMAILS).map((e) => e.toLowerCase()),
    outboundAllow: list(raw.OUTBOUND_ALLOW),
    logLevel: raw.LOG_LEVEL as PlatformConfig['logLevel'],
    security: securityConfigFrom(raw),
  };
}
