import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import YAML from 'yaml';

import type { Role } from '../../adapters/config/platform-config';
import { loadConfig, platformConfigSchema, selectedAdapters } from '../../app/configuration';
import { platformPorts } from '../../app/ports';

/**
 * docker-compose.yml cannot be started here (no Docker daemon), so this pins what can be checked
 * statically: the services, the roles' commands, and that each role's environment is one the
 * configuration loader accepts.
 */
const root = join(__dirname, '..', '..');
const compose = YAML.parse(readFileSync(join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as Compose;

interface Service {
  image?: string;
  build?: { context?: string; dockerfile?: string } | string;
  command?: string | string[];
  environment?: Record<string, string | number | boolean | null>;
  depends_on?: Record<string, { condition?: string }> | string[];
  healthcheck?: { test?: string | string[]; disable?: boolean };
  ports?: (string | { target?: number; published?: string | number })[];
  volumes?: (string | { source?: string })[];
}
interface Compose {
  services: Record<string, Service>;
  volumes?: Record<string, unknown>;
}

const schemaKeys = new Set(Object.keys(platformConfigSchema().properties));
const SECRETS = ['JWT_SECRET', 'INTERNAL_SECRET', 'WEBHOOK_SIGNING_SECRET'];
const ROLES: Record<string, Role> = { migrate: 'migrate', api: 'api', worker: 'worker', gateway: 'gateway' };
const INFRA = ['postgres', 'rabbitmq', 'redis', 'minio', 'elasticsearch', 'neo4j'];

/** Compose interpolation: `${VAR:?msg}` gets a 32+ character URL-safe dummy, `${VAR:-default}` its default. */
function interpolate(value: string): string {
  return value.replace(/\$\$|\$\{([A-Za-z_][A-Za-z0-9_]*)(?:(:?[-?])([^}]*))?\}/g, (match, name: string, op?: string, arg?: string) => {
    if (match === '$$') return '$';
    if (!op) throw new Error(`\${${name}} has neither a default (:-) nor a required marker (:?)`);
    if (op.endsWith('?')) return `${name.toLowerCase().replace(/_/g, '-')}-${'x'.repeat(32)}`;
    return arg ?? '';
  });
}

function envOf(name: string): Record<string, string> {
  const env = compose.services[name].environment;
  if (!env || Array.isArray(env)) throw new Error(`${name}: environment must be a mapping`);
  return Object.fromEntries(Object.entries(env).map(([k, v]) => [k, v === null ? '' : String(v)]));
}

const commandOf = (s: Service) =>
  Array.isArray(s.command)
    ? s.command
    : String(s.command ?? '')
        .split(/\s+/)
        .filter(Boolean);
const dependsOn = (s: Service): Record<string, { condition?: string }> =>
  Array.isArray(s.depends_on) ? Object.fromEntries(s.depends_on.map((d) => [d, {}])) : (s.depends_on ?? {});

describe('docker-compose.yml', () => {
  it('declares the backing services and every platform role', () => {
    for (const name of [...INFRA, ...Object.keys(ROLES)]) expect(Object.keys(compose.services)).toContain(name);
    const s = compose.services;
    expect(s.postgres.image).toBe('pgvector/pgvector:pg17');
    expect(s.postgres.volumes?.length).toBeGreaterThan(0);
    expect(s.rabbitmq.image).toBe('rabbitmq:3-management');
    expect(s.redis.image).toBe('redis:7');
    expect(s.minio.image).toMatch(/^minio\/minio(:|$)/);
    expect(s.neo4j.image).toMatch(/^neo4j:5/);
    const es = envOf('elasticsearch');
    expect(es['discovery.type']).toBe('single-node');
    expect(es['xpack.security.enabled']).toBe('false');
  });

  it('has a one-shot job that creates the bucket the platform writes to', () => {
    const init = Object.values(compose.services).find((s) => s.image?.startsWith('minio/mc'));
    expect(init).toBeDefined();
    expect(commandOf(init!).join(' ')).toMatch(/mc mb --ignore-existing/);
    expect(init!.environment?.S3_BUCKET).toBe(compose.services.api.environment?.S3_BUCKET);
  });

  it('runs the Elasticsearch major that the installed client speaks (9.x clients send compatible-with=9)', () => {
    const client = JSON.parse(readFileSync(join(root, 'node_modules', '@elastic', 'elasticsearch', 'package.json'), 'utf8')) as {
      version: string;
    };
    const image = interpolate(compose.services.elasticsearch.image ?? '');
    expect(image).toMatch(/^docker\.elastic\.co\/elasticsearch\/elasticsearch:\d+\./);
    expect(image.split(':')[1].split('.')[0]).toBe(client.version.split('.')[0]);
  });

  it('builds every role from the Dockerfile and runs it with its role as the command', () => {
    for (const [name, role] of Object.entries(ROLES)) {
      const build = compose.services[name].build;
      expect(typeof build === 'object' ? build : { context: build }).toEqual({ context: '.', dockerfile: 'Dockerfile' });
      expect(commandOf(compose.services[name])).toEqual([role]);
    }
  });

  it('passes platform roles only configuration keys of the schema', () => {
    for (const name of Object.keys(ROLES)) {
      const unknown = Object.keys(envOf(name)).filter((k) => !schemaKeys.has(k));
      expect({ service: name, unknown }).toEqual({ service: name, unknown: [] });
    }
    for (const key of ['NEO4J_URL', 'NEO4J_USER', 'NEO4J_PASSWORD', 'NEO4J_DATABASE']) expect(envOf('worker')).toHaveProperty(key);
  });

  it("offers every port's selector key to every role", () => {
    for (const name of Object.keys(ROLES)) {
      const missing = platformPorts.map((p) => p.registry.key).filter((key) => !(key in envOf(name)));
      expect({ service: name, missing }).toEqual({ service: name, missing: [] });
    }
  });

  it('gives each role the keys it needs, secrets from required interpolation shared by all', () => {
    const need: Record<string, string[]> = {
      gateway: ['API_URL', ...SECRETS, 'DATABASE_URL'],
      api: ['DATABASE_URL', 'RABBITMQ_URL', 'REDIS_URL', ...SECRETS],
      worker: ['DATABASE_URL', 'RABBITMQ_URL', 'REDIS_URL', ...SECRETS],
      migrate: ['DATABASE_URL'],
    };
    for (const [name, keys] of Object.entries(need)) {
      const env = envOf(name);
      for (const key of keys) expect({ service: name, key, present: Boolean(env[key]) }).toEqual({ service: name, key, present: true });
      if (env.BLOB_STORE === 's3') expect(env.S3_BUCKET).toBeTruthy();
      if (env.VECTOR_INDEX && interpolate(env.VECTOR_INDEX) === 'elasticsearch') expect(env.ELASTICSEARCH_URL).toBeTruthy();
    }
    for (const key of SECRETS) {
      expect(envOf('gateway')[key]).toMatch(new RegExp(`^\\$\\{${key}:\\?[^}]*\\}$`));
      for (const name of ['api', 'worker']) expect(envOf(name)[key]).toBe(envOf('gateway')[key]);
    }
    expect(envOf('api').API_HOST).toBe('0.0.0.0');
    expect(envOf('gateway').HOST).toBe('0.0.0.0');
    expect(new URL(interpolate(envOf('gateway').API_URL)).host).toBe(`api:${envOf('api').API_PORT}`);
  });

  it('points depends_on at declared services, waiting on health checks or completion', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      for (const [target, { condition }] of Object.entries(dependsOn(service))) {
        expect({ name, target, exists: target in compose.services }).toEqual({ name, target, exists: true });
        expect(['service_healthy', 'service_completed_successfully']).toContain(condition);
        if (condition === 'service_healthy') expect(compose.services[target].healthcheck?.test).toBeDefined();
      }
    }
    for (const name of ['api', 'worker', 'gateway']) {
      const deps = dependsOn(compose.services[name]);
      for (const infra of ['postgres', 'rabbitmq', 'redis', 'minio']) expect(deps[infra]?.condition).toBe('service_healthy');
      expect(deps.migrate?.condition).toBe('service_completed_successfully');
    }
    expect(dependsOn(compose.services.migrate).postgres?.condition).toBe('service_healthy');
    for (const name of INFRA) expect(compose.services[name].healthcheck?.test).toBeDefined();
  });

  it('publishes only the gateway, on container port 4000', () => {
    for (const [name, service] of Object.entries(compose.services)) {
      if (name === 'gateway') continue;
      expect({ name, ports: service.ports ?? [] }).toEqual({ name, ports: [] });
    }
    const ports = (compose.services.gateway.ports ?? []).map((p) =>
      typeof p === 'string' ? interpolate(p) : `${p.published}:${p.target}`,
    );
    expect(ports).toEqual(['4000:4000']);
  });

  it('declares every named volume it mounts', () => {
    for (const service of Object.values(compose.services)) {
      for (const v of service.volumes ?? []) {
        const source = typeof v === 'string' ? v.split(':')[0] : v.source;
        if (source && !source.startsWith('.') && !source.startsWith('/')) expect(Object.keys(compose.volumes ?? {})).toContain(source);
      }
    }
  });

  describe('each role environment passes the configuration loader', () => {
    let dataDir: string;
    beforeAll(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'compose-config-'));
    });
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    const resolved = (name: string, extra: Record<string, string> = {}) => ({
      ...Object.fromEntries(Object.entries(envOf(name)).map(([k, v]) => [k, interpolate(v)])),
      DATA_DIR: dataDir, // `migrate` keeps generated secrets under DATA_DIR; keep them out of the repository
      ...extra,
    });

    it.each(Object.entries(ROLES))('%s', (name, role) => {
      const config = loadConfig(role, resolved(name));
      expect(config.databaseUrl).toMatch(/^postgres:\/\/platform:.+@postgres:5432\/platform$/);
      expect(config.settings).toMatchObject({
        S3_BUCKET: 'agent-platform',
        S3_ENDPOINT: 'http://minio:9000',
        S3_FORCE_PATH_STYLE: true,
      });
      expect(selectedAdapters(config.settings)).toMatchObject({
        BLOB_STORE: ['s3'],
        VECTOR_INDEX: ['pgvector'],
        QUEUE: ['rabbitmq'],
        RATE_LIMIT_STORE: ['redis'],
        CHAT_PROVIDERS: ['local'],
        EMBEDDINGS_PROVIDER: ['local'],
        RERANK_PROVIDER: ['none'],
      });
      if (role !== 'migrate') {
        expect(config.settings.RABBITMQ_URL).toMatch(/^amqp:\/\/platform:.+@rabbitmq:5672$/);
        expect(config.settings.REDIS_URL).toMatch(/^redis:\/\/:.+@redis:6379$/);
        expect(config.secrets.jwt.length).toBeGreaterThanOrEqual(32);
      }
      if (role === 'gateway') expect(config.api.url).toBe('http://api:4001');
      if (role === 'api') expect(config.api).toMatchObject({ host: '0.0.0.0', port: 4001 });
    });

    it('switches to Elasticsearch with VECTOR_INDEX=elasticsearch alone', () => {
      const config = loadConfig('api', resolved('api', { VECTOR_INDEX: 'elasticsearch' }));
      expect(selectedAdapters(config.settings).VECTOR_INDEX).toEqual(['elasticsearch']);
      expect(config.settings.ELASTICSEARCH_URL).toBe('http://elasticsearch:9200');
    });

    it('switches the knowledge graph to the neo4j service with GRAPH_STORE=neo4j alone', () => {
      const config = loadConfig('worker', resolved('worker', { GRAPH_STORE: 'neo4j' }));
      expect(selectedAdapters(config.settings).GRAPH_STORE).toEqual(['neo4j']);
      expect(config.settings).toMatchObject({ NEO4J_URL: 'bolt://neo4j:7687', NEO4J_USER: 'neo4j' });
      expect(config.settings.NEO4J_PASSWORD).toBeTruthy();
      for (const name of ['api', 'worker']) expect(dependsOn(compose.services[name]).neo4j?.condition).toBe('service_healthy');
    });

    it('picks the model providers of the keys it is given, per capability', () => {
      const config = loadConfig('api', resolved('api', { OPENAI_API_KEY: 'sk-x', COHERE_API_KEY: 'co-x' }));
      expect(selectedAdapters(config.settings)).toMatchObject({
        CHAT_PROVIDERS: ['local', 'cohere', 'openai'],
        EMBEDDINGS_PROVIDER: ['openai'],
        RERANK_PROVIDER: ['cohere'],
        VISION_PROVIDER: ['openai'],
        TRANSCRIPTION_PROVIDER: ['openai'],
        SPEECH_PROVIDER: ['openai'],
      });
    });
  });
});
