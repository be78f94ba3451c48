import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import YAML from 'yaml';

import type { Role } from '../../adapters/config/platform-config';
import { loadConfig, platformConfigSchema, selectedAdapters } from '../../app/configuration';
import { platformPorts } from '../../app/ports';

/**
 * Helm is not installed here, so the chart is checked statically: its metadata parses, every template
 * exists and reads only values that exist, its blocks balance, and its settings are configuration keys.
 */
const chartDir = join(__dirname, '..', '..', 'charts', 'agent-platform');
const templatesDir = join(chartDir, 'templates');
const chart = YAML.parse(readFileSync(join(chartDir, 'Chart.yaml'), 'utf8')) as Record<string, unknown>;
const values = YAML.parse(readFileSync(join(chartDir, 'values.yaml'), 'utf8')) as Record<string, unknown>;
const templateFiles = readdirSync(templatesDir).filter((f) => /\.(ya?ml|tpl|txt)$/.test(f));
const template = (file: string) => readFileSync(join(templatesDir, file), 'utf8');
const schemaKeys = new Set(Object.keys(platformConfigSchema().properties));
const SECRETS = ['JWT_SECRET', 'INTERNAL_SECRET', 'WEBHOOK_SIGNING_SECRET'];

const EXPECTED_TEMPLATES = [
  '_helpers.tpl',
  'configmap.yaml',
  'secret.yaml',
  'gateway-deployment.yaml',
  'api-deployment.yaml',
  'worker-deployment.yaml',
  'gateway-service.yaml',
  'api-service.yaml',
  'migrate-job.yaml',
  'neo4j-statefulset.yaml',
  'neo4j-service.yaml',
];
/** Templates of a server the chart may run for the platform: their containers' env is that server's own. */
const SERVER_TEMPLATES = ['neo4j-statefulset.yaml'];

function hasPath(obj: unknown, path: string[]): boolean {
  let node: unknown = obj;
  for (const part of path) {
    if (!node || typeof node !== 'object' || !(part in (node as object))) return false;
    node = (node as Record<string, unknown>)[part];
  }
  return true;
}

const section = (name: string) => values[name] as Record<string, unknown>;

describe('Helm chart charts/agent-platform', () => {
  it('has parseable Chart.yaml and values.yaml', () => {
    expect(chart).toMatchObject({ apiVersion: 'v2', name: 'agent-platform', type: 'application' });
    expect(String(chart.version)).toMatch(/^\d+\.\d+\.\d+/);
    expect(values).toEqual(expect.objectContaining({ image: expect.any(Object), config: expect.any(Object), secrets: expect.any(Object) }));
    for (const role of ['gateway', 'api', 'worker']) expect(section(role).replicaCount).toEqual(expect.any(Number));
  });

  it('has every template', () => {
    for (const file of EXPECTED_TEMPLATES) expect(existsSync(join(templatesDir, file))).toBe(true);
  });

  it('reads only .Values keys that values.yaml defines', () => {
    for (const file of templateFiles) {
      const missing = [...template(file).matchAll(/\.Values((?:\.[A-Za-z_][A-Za-z0-9_]*)+)/g)]
        .map((m) => m[1].slice(1))
        .filter((path) => !hasPath(values, path.split('.')));
      expect({ file, missing }).toEqual({ file, missing: [] });
    }
  });

  it('balances template actions and includes only defined templates', () => {
    const helpers = template('_helpers.tpl');
    const defined = new Set([...helpers.matchAll(/\{\{-?\s*define\s+"([^"]+)"/g)].map((m) => m[1]));
    for (const file of templateFiles) {
      const text = template(file);
      expect({ file, open: text.split('{{').length }).toEqual({ file, open: text.split('}}').length });
      const blocks = text.match(/\{\{-?\s*(?:if|range|with|define)\b/g)?.length ?? 0;
      const ends = text.match(/\{\{-?\s*end\b/g)?.length ?? 0;
      expect({ file, blocks }).toEqual({ file, blocks: ends });
      const unknown = [...text.matchAll(/include\s+"([^"]+)"/g)].map((m) => m[1]).filter((name) => !defined.has(name));
      expect({ file, unknown }).toEqual({ file, unknown: [] });
    }
  });

  it('puts only configuration keys in the ConfigMap, the Secret and the containers', () => {
    const config = section('config');
    const secrets = section('secrets');
    for (const key of [...Object.keys(config), ...Object.keys(secrets)])
      expect({ key, known: schemaKeys.has(key) }).toEqual({ key, known: true });
    expect(Object.keys(config).filter((k) => k in secrets)).toEqual([]);
    // Helm renders unquoted large numbers as floats (5.24288e+07): every ConfigMap value is a string.
    for (const [key, value] of Object.entries(config)) expect({ key, type: typeof value }).toEqual({ key, type: 'string' });
    for (const key of [...SECRETS, 'DATABASE_URL', 'RABBITMQ_URL', 'REDIS_URL', 'S3_SECRET_ACCESS_KEY'])
      expect(Object.keys(secrets)).toContain(key);
    // The ConfigMap and Secret data are exactly the `config` and `secrets` maps (through the helpers).
    expect(template('configmap.yaml')).toContain('include "agent-platform.configData"');
    expect(template('secret.yaml')).toContain('include "agent-platform.secretData"');
    const helpers = template('_helpers.tpl');
    expect(helpers).toMatch(/define "agent-platform\.configData"[^]*?range \$key, \$value := \.Values\.config \}\}/);
    expect(helpers).toMatch(/define "agent-platform\.secretData"[^]*?range \$key, \$value := \.Values\.secrets \}\}/);
    for (const file of templateFiles.filter((f) => f.endsWith('.yaml') && !SERVER_TEMPLATES.includes(f))) {
      const env = [...template(file).matchAll(/-\s+name:\s+([A-Z][A-Z0-9_]*)\s*$/gm)].map((m) => m[1]);
      expect({ file, unknown: env.filter((k) => !schemaKeys.has(k)) }).toEqual({ file, unknown: [] });
    }
  });

  it("lets every port's adapter be chosen from values.yaml", () => {
    const missing = platformPorts.map((p) => p.registry.key).filter((key) => !(key in section('config')));
    expect(missing).toEqual([]);
  });

  it('requires the shared secrets and the shared services when it renders its own Secret', () => {
    const helpers = template('_helpers.tpl');
    for (const key of [...SECRETS, 'DATABASE_URL', 'RABBITMQ_URL', 'REDIS_URL'])
      expect(helpers).toMatch(new RegExp(`required "[^"]*" \\.Values\\.secrets\\.${key}\\b`));
  });

  it('runs each role with its command, probes liveness on /health and readiness on /ready, and migrates in a pre-install/pre-upgrade hook', () => {
    for (const role of ['gateway', 'api', 'worker']) expect(template(`${role}-deployment.yaml`)).toContain(`args: ["${role}"]`);
    expect(section('api').livenessProbe).toMatchObject({ httpGet: { path: '/health' } });
    expect(section('api').readinessProbe).toMatchObject({ httpGet: { path: '/ready' } });
    expect(section('gateway').readinessProbe).toMatchObject({ httpGet: { path: '/health' } });
    expect(section('gateway').livenessProbe).toBeDefined();
    expect(template('worker-deployment.yaml')).not.toMatch(/Probe:/);
    const job = template('migrate-job.yaml');
    expect(job).toContain('kind: Job');
    expect(job).toContain('args: ["migrate"]');
    expect(job).toMatch(/"helm\.sh\/hook": pre-install,pre-upgrade/);
    expect(template('api-service.yaml')).toContain('type: ClusterIP');
    expect(template('gateway-service.yaml')).toContain('.Values.gateway.service.type');
  });

  it('runs its own Neo4j only with GRAPH_STORE=neo4j and neo4j.install, pointing NEO4J_URL at it unless set', () => {
    expect(section('config').GRAPH_STORE).toBe('postgres');
    expect(section('neo4j')).toMatchObject({ install: true, image: expect.stringMatching(/^neo4j:5/) });
    const helpers = template('_helpers.tpl');
    expect(helpers).toMatch(
      /define "agent-platform\.installNeo4j"[^]*?if and \(eq \(toString \.Values\.config\.GRAPH_STORE\) "neo4j"\) \.Values\.neo4j\.install/,
    );
    for (const file of ['neo4j-statefulset.yaml', 'neo4j-service.yaml'])
      expect(template(file).trimStart().startsWith('{{- if include "agent-platform.installNeo4j" . }}')).toBe(true);
    expect(helpers).toMatch(/NEO4J_URL: \{\{ printf "bolt:\/\/%s-neo4j:7687" \(include "agent-platform\.fullname" \.\)/);
    expect(helpers).toMatch(
      /if eq \(toString \.Values\.config\.GRAPH_STORE\) "neo4j" \}\}\n\{\{- \$_ := required "[^"]*" \.Values\.secrets\.NEO4J_PASSWORD/,
    );
    const server = template('neo4j-statefulset.yaml');
    expect(server).toContain('key: NEO4J_PASSWORD');
    expect(server).toContain('value: "neo4j/$(NEO4J_PASSWORD)"');
    expect(template('neo4j-service.yaml')).toContain('port: 7687');
  });

  describe('the default values pass the configuration loader', () => {
    let dataDir: string;
    beforeAll(() => {
      dataDir = mkdtempSync(join(tmpdir(), 'chart-config-'));
    });
    afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

    // What the ConfigMap and Secret render (empty values left out), with the required secrets filled in.
    const env = (extra: Record<string, string>) => ({
      ...Object.fromEntries(
        Object.entries(section('config'))
          .filter(([, v]) => String(v) !== '')
          .map(([k, v]) => [k, String(v)]),
      ),
      JWT_SECRET: 'j'.repeat(40),
      INTERNAL_SECRET: 'i'.repeat(40),
      WEBHOOK_SIGNING_SECRET: 'w'.repeat(40),
      DATABASE_URL: 'postgres://platform:secret@postgres:5432/platform',
      RABBITMQ_URL: 'amqp://platform:secret@rabbitmq:5672',
      REDIS_URL: 'redis://:secret@redis:6379',
      DATA_DIR: dataDir,
      ...extra,
    });
    const roleEnv: Record<string, Record<string, string>> = {
      gateway: {
        HOST: '0.0.0.0',
        PORT: String(section('gateway').port),
        API_URL: `http://release-agent-platform-api:${(section('api').service as { port: number }).port}`,
      },
      api: { API_HOST: '0.0.0.0', API_PORT: String(section('api').port) },
      worker: {},
      migrate: {},
    };

    it.each(Object.keys(roleEnv))('%s', (role) => {
      const config = loadConfig(role as Role, env(roleEnv[role]));
      expect(selectedAdapters(config.settings)).toMatchObject({ BLOB_STORE: ['s3'], QUEUE: ['rabbitmq'], RATE_LIMIT_STORE: ['redis'] });
      if (role === 'api') expect(config.api.port).toBe(section('api').port);
      if (role === 'gateway') expect(config.gateway.port).toBe(section('gateway').port);
    });

    it('selects Neo4j with GRAPH_STORE=neo4j and the URL the chart renders for its own Neo4j', () => {
      const config = loadConfig(
        'worker',
        env({ GRAPH_STORE: 'neo4j', NEO4J_URL: 'bolt://release-agent-platform-neo4j:7687', NEO4J_PASSWORD: 'p'.repeat(16) }),
      );
      expect(selectedAdapters(config.settings).GRAPH_STORE).toEqual(['neo4j']);
      expect(config.settings).toMatchObject({ NEO4J_USER: 'neo4j' });
    });
  });
});
