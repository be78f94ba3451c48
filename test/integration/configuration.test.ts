import { spawn } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

import { ConfigError } from '../../adapters/config/load-config';
import { loadConfig, selectedAdapters } from '../../app/configuration';

const ROOT = resolve(__dirname, '../..');
/** Starting tsx takes a second or two, much more on a loaded machine: a ceiling, not a timing check. */
const SPAWN_TIMEOUT_MS = 120_000;
let dataDir: string;
beforeAll(() => {
  dataDir = mkdtempSync(join(tmpdir(), 'ap-config-'));
});
afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

function problemsOf(run: () => unknown): string[] {
  try {
    run();
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as ConfigError).problems;
  }
  throw new Error('expected a ConfigError');
}

const keysOf = (problems: string[]) => problems.map((p) => p.split(':')[0]).sort();

describe('loadConfig', () => {
  it('lists every problem at once in one ConfigError', () => {
    const problems = problemsOf(() =>
      loadConfig('start', {
        DATA_DIR: dataDir,
        PORT: '99999',
        BLOB_STORE: 'ftp',
        VECTOR_INDEX: 'elasticsearch',
        LOG_LEVEL: 'loud',
        INITIAL_CREDITS_USD: '-1',
        DATABASE_URL: 'mysql://db/x',
        JWT_SECRET: 'short',
      }),
    );
    expect(keysOf(problems)).toEqual([
      'BLOB_STORE',
      'DATABASE_URL',
      'ELASTICSEARCH_URL',
      'INITIAL_CREDITS_USD',
      'JWT_SECRET',
      'LOG_LEVEL',
      'PORT',
    ]);
    expect(problems.find((p) => p.startsWith('BLOB_STORE'))).toContain('local, s3');
  });

  it('requires S3_BUCKET with BLOB_STORE=s3, alongside the other problems', () => {
    const problems = problemsOf(() =>
      loadConfig('start', { DATA_DIR: dataDir, PORT: 'abc', BLOB_STORE: 's3', GOOGLE_CLIENT_ID: 'id-only' }),
    );
    expect(keysOf(problems)).toEqual(['GOOGLE_CLIENT_SECRET', 'PORT', 'S3_BUCKET']);
  });

  it('keeps external-issuer tokens off by default, and needs the audience with the issuer', () => {
    expect(loadConfig('start', { DATA_DIR: dataDir }).gateway.externalJwt).toBeUndefined();
    const problems = problemsOf(() => loadConfig('start', { DATA_DIR: dataDir, EXTERNAL_JWT_ISSUER: 'https://idp.example.test' }));
    expect(keysOf(problems)).toEqual(['EXTERNAL_JWT_AUDIENCE']);
    const c = loadConfig('start', { DATA_DIR: dataDir, EXTERNAL_JWT_ISSUER: 'https://idp.example.test', EXTERNAL_JWT_AUDIENCE: 'api' });
    expect(c.gateway.externalJwt).toEqual({ issuer: 'https://idp.example.test', audience: 'api', jwksUrl: undefined, emailClaim: 'email' });
  });

  it('puts all problems in the error message', () => {
    const message = (() => {
      try {
        loadConfig('start', { DATA_DIR: dataDir, PORT: 'abc', BLOB_STORE: 's3' });
      } catch (e) {
        return (e as Error).message;
      }
      return '';
    })();
    expect(message.split('\n')).toEqual(['Invalid configuration:', expect.stringMatching(/^ {2}- /), expect.stringMatching(/^ {2}- /)]);
    expect(message).toContain('- PORT:');
    expect(message).toContain('- S3_BUCKET:');
  });

  it('requires shared secrets when roles run separately, and API_URL for the gateway', () => {
    expect(keysOf(problemsOf(() => loadConfig('api', { DATA_DIR: dataDir })))).toEqual([
      'INTERNAL_SECRET',
      'JWT_SECRET',
      'WEBHOOK_SIGNING_SECRET',
    ]);
    expect(keysOf(problemsOf(() => loadConfig('gateway', { DATA_DIR: dataDir })))).toEqual([
      'API_URL',
      'INTERNAL_SECRET',
      'JWT_SECRET',
      'WEBHOOK_SIGNING_SECRET',
    ]);
  });

  it('serves HTTP from one process per core on a database server, and from one on the embedded database', () => {
    const server = 'postgres://postgres@127.0.0.1:5432/x';
    expect(loadConfig('start', { DATA_DIR: dataDir }).httpProcesses).toBe(1);
    expect(loadConfig('start', { DATA_DIR: dataDir, DATABASE_URL: server }).httpProcesses).toBe(Math.min(availableParallelism(), 8));
    expect(loadConfig('start', { DATA_DIR: dataDir, DATABASE_URL: server, HTTP_PROCESSES: '3' }).httpProcesses).toBe(3);
    expect(problemsOf(() => loadConfig('start', { DATA_DIR: dataDir, HTTP_PROCESSES: '2' }))).toEqual([
      'HTTP_PROCESSES: more than 1 needs DATABASE_URL (the embedded database lives in one process)',
    ]);
  });

  it('fills defaults, coerces types and keeps generated secrets of a single-machine install', () => {
    const c = loadConfig('start', {
      DATA_DIR: dataDir,
      PORT: '0',
      TRUST_PROXY: 'true',
      SUPERADMIN_EMAILS: ' Root@Example.com ,, b@example.com ',
    });
    expect(c).toMatchObject({
      role: 'start',
      gateway: { host: '127.0.0.1', port: 0, trustProxy: true },
      billing: { initialCreditsUsd: 5, marginMultiplier: 1.2 },
      plans: { seats: 5, agents: 25, knowledgeBases: 25 },
      superadminEmails: ['root@example.com', 'b@example.com'],
      logLevel: 'info',
    });
    expect(selectedAdapters(c.settings)).toEqual({
      VECTOR_INDEX: ['pgvector'],
      BLOB_STORE: ['local'],
      QUEUE: ['in-process'],
      RATE_LIMIT_STORE: ['in-process'],
      NONCE_REGISTRY: ['in-process'],
      GRAPH_STORE: ['postgres'],
      HEAVY_WORK: ['worker-threads'],
      CHAT_PROVIDERS: ['local'],
      EMBEDDINGS_PROVIDER: ['local'],
      RERANK_PROVIDER: ['none'],
      VISION_PROVIDER: ['none'],
      TRANSCRIPTION_PROVIDER: ['none'],
      SPEECH_PROVIDER: ['none'],
    });
    expect(c.databaseUrl).toBeUndefined();
    expect(c.google).toBeUndefined();
    expect(c.secrets.jwt.length).toBeGreaterThanOrEqual(32);
    expect(loadConfig('start', { DATA_DIR: dataDir }).secrets).toEqual(c.secrets);
  });

  it('keeps the keys that chose adapters before the registries: REDIS_URL, RABBITMQ_URL and provider keys', () => {
    const c = loadConfig('start', {
      DATA_DIR: dataDir,
      REDIS_URL: 'redis://127.0.0.1:6379',
      RABBITMQ_URL: 'amqp://guest:guest@127.0.0.1:5672',
      COHERE_API_KEY: 'co-key',
    });
    expect(selectedAdapters(c.settings)).toMatchObject({
      RATE_LIMIT_STORE: ['redis'],
      NONCE_REGISTRY: ['redis'],
      QUEUE: ['rabbitmq'],
      CHAT_PROVIDERS: ['local', 'cohere'],
      EMBEDDINGS_PROVIDER: ['cohere'],
      RERANK_PROVIDER: ['cohere'],
      VISION_PROVIDER: ['none'],
    });
    expect(c.settings.QUEUE_PREFIX).toBe('agent-platform');
    const openai = loadConfig('start', { DATA_DIR: dataDir, OPENAI_API_KEY: 'sk', COHERE_API_KEY: 'co' });
    expect(selectedAdapters(openai.settings)).toMatchObject({ EMBEDDINGS_PROVIDER: ['openai'], SPEECH_PROVIDER: ['openai'] });
  });

  it('lets each port name its adapter by id, per capability for model providers', () => {
    const c = loadConfig('start', {
      DATA_DIR: dataDir,
      OPENAI_API_KEY: 'sk',
      EMBEDDINGS_PROVIDER: 'local',
      RERANK_PROVIDER: 'local',
      SPEECH_PROVIDER: 'none',
      CHAT_PROVIDERS: 'openai, local',
      QUEUE: 'in-process',
    });
    expect(selectedAdapters(c.settings)).toMatchObject({
      EMBEDDINGS_PROVIDER: ['local'],
      RERANK_PROVIDER: ['local'],
      SPEECH_PROVIDER: ['none'],
      VISION_PROVIDER: ['openai'],
      CHAT_PROVIDERS: ['openai', 'local'],
      QUEUE: ['in-process'],
    });
  });

  it('fails on unknown adapter ids listing the known ones, and on keys a chosen adapter needs, with the other problems', () => {
    const problems = problemsOf(() =>
      loadConfig('start', {
        DATA_DIR: dataDir,
        QUEUE: 'kafka',
        CHAT_PROVIDERS: 'local,mistral',
        EMBEDDINGS_PROVIDER: 'openai',
        RATE_LIMIT_STORE: 'redis',
        PORT: 'abc',
      }),
    );
    expect(keysOf(problems)).toEqual(['CHAT_PROVIDERS', 'OPENAI_API_KEY', 'PORT', 'QUEUE', 'REDIS_URL']);
    expect(problems).toEqual(
      expect.arrayContaining([
        'QUEUE: must be equal to one of the allowed values (rabbitmq, in-process)',
        'CHAT_PROVIDERS: unknown "mistral" (known: local, cohere, openai)',
        'OPENAI_API_KEY: required when EMBEDDINGS_PROVIDER is openai',
        'REDIS_URL: required when RATE_LIMIT_STORE is redis',
      ]),
    );
  });

  it('reads a CONFIG_FILE (YAML); the environment wins', () => {
    const file = join(dataDir, 'platform.yaml');
    writeFileSync(file, 'PORT: 4321\nPLAN_SEATS: 9\nLOG_LEVEL: warn\n');
    const c = loadConfig('start', { DATA_DIR: dataDir, CONFIG_FILE: file, LOG_LEVEL: 'error' });
    expect(c.gateway.port).toBe(4321);
    expect(c.plans.seats).toBe(9);
    expect(c.logLevel).toBe('error');
    expect(keysOf(problemsOf(() => loadConfig('start', { DATA_DIR: dataDir, CONFIG_FILE: join(dataDir, 'missing.yaml') })))).toEqual([
      'CONFIG_FILE ' + join(dataDir, 'missing.yaml'),
    ]);
  });
});

describe('the platform binary', () => {
  function run(args: string[], env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
    return new Promise((resolvePromise, reject) => {
      const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(ROOT, 'bin/platform.ts'), ...args], {
        cwd: ROOT,
        // A clean environment: nothing from the developer's shell (DATABASE_URL...) leaks in.
        env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? tmpdir(), ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
      child.on('error', reject);
      child.on('close', (code) => resolvePromise({ code, stderr }));
    });
  }

  it(
    'exits non-zero and prints every configuration problem',
    async () => {
      const r = await run(['start'], { DATA_DIR: dataDir, PORT: 'abc', BLOB_STORE: 's3', LOG_LEVEL: 'loud' });
      expect(r.code).toBe(1);
      expect(r.stderr).toContain('Invalid configuration');
      for (const key of ['PORT', 'S3_BUCKET', 'LOG_LEVEL']) expect(r.stderr).toContain(`- ${key}:`);
      expect(r.stderr).not.toContain('    at '); // a list, not a stack trace
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'prints the usage and exits 2 for an unknown role',
    async () => {
      const r = await run(['launch'], { DATA_DIR: dataDir });
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('usage: platform <start|gateway|api|worker|migrate>');
    },
    SPAWN_TIMEOUT_MS,
  );
});
