import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { Container } from 'inversify';

import type { PlatformConfig } from '../../adapters/config/platform-config';
import { Argon2idPasswordHasher } from '../../adapters/crypto/argon2id.password-hasher';
import { loadConfig } from '../../app/configuration';
import type { Infrastructure, InfrastructureOverrides } from '../../app/infrastructure';
import { startPlatform } from '../../app/platform';
import type { Store } from '../../core/ports/store';
import { HttpClient } from './http';

/** Fixed secrets so that security tests can forge tokens and gateway signatures on purpose. */
export const TEST_JWT_SECRET = 'test-jwt-secret-for-the-foundation-suite-0123456789';
export const TEST_INTERNAL_SECRET = 'test-internal-secret-for-the-foundation-suite-9876';

/**
 * Hook timeout for booting a platform: PGlite (WASM Postgres + pgvector) and the migrations take a few seconds
 * on an idle machine and much longer on a loaded CI runner. Not a timing assertion, just a ceiling.
 */
export const BOOT_TIMEOUT_MS = 180_000;

/** Cheap Argon2id parameters: tests hash many passwords; production keeps the OWASP cost. */
export const cheapPasswords = () => new Argon2idPasswordHasher({ memoryCost: 1024, timeCost: 1, parallelism: 1 });

export interface TestPlatform {
  /** The gateway (the only public entry point). */
  gatewayUrl: string;
  /** The backend reached directly (tests prove it refuses unsigned requests). */
  apiUrl: string;
  config: PlatformConfig;
  infra: Infrastructure;
  container: Container;
  store: Store;
  /** HTTP client bound to the gateway. */
  http: HttpClient;
  /** The inbound SMTP listener's port when EMAIL_SMTP_PORT was given. */
  smtpPort: number | null;
  /** The HTTP replicas' process ids (HTTP_PROCESSES above 1 with DATABASE_URL). */
  replicaPids(): number[];
  close(): Promise<void>;
}

/**
 * One platform per test file (`start` role: gateway + api + worker in this process) on an in-memory PGlite,
 * a temporary DATA_DIR and PORT 0. `env` adds or overrides configuration keys (PLAN_SEATS, SUPERADMIN_EMAILS...).
 */
export async function startTestPlatform(env: Record<string, string> = {}, overrides: InfrastructureOverrides = {}): Promise<TestPlatform> {
  const dataDir = mkdtempSync(join(tmpdir(), 'ap-test-'));
  const config = loadConfig('start', {
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    INTERNAL_SECRET: TEST_INTERNAL_SECRET,
    WEBHOOK_SIGNING_SECRET: 'test-webhook-secret-0123456789',
    // One process unless a test asks for replicas (they would default to one per core on a database server).
    ...(env.DATABASE_URL ? { HTTP_PROCESSES: '1' } : {}),
    ...env,
  });
  let running;
  try {
    running = await startPlatform(config, { memoryDatabase: true, passwords: cheapPasswords(), ...overrides });
  } catch (e) {
    rmSync(dataDir, { recursive: true, force: true });
    throw e;
  }
  const infra = running.infrastructure;
  return {
    gatewayUrl: running.gatewayUrl,
    apiUrl: running.apiUrl,
    config: infra.config,
    infra,
    container: running.container,
    store: infra.store,
    http: new HttpClient(running.gatewayUrl),
    smtpPort: running.smtpAddress?.port ?? null,
    replicaPids: () => running.replicaPids(),
    close: async () => {
      await running.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
