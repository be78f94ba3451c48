import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

/**
 * docs/CONVENTIONS.md: an optional SDK is imported only when its adapter is selected. Each case boots the
 * infrastructure in a fresh process (a module cache of its own) and lists the SDKs that process loaded.
 */
const ROOT = resolve(__dirname, '../..');
/** Starting tsx and PGlite takes seconds, more on a loaded machine: a ceiling, not a timing check. */
const SPAWN_TIMEOUT_MS = 180_000;

function loadedSdks(env: Record<string, string>): Promise<string[]> {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(join(ROOT, 'node_modules/.bin/tsx'), [join(__dirname, 'fixtures/loaded-sdks.ts'), JSON.stringify(env)], {
      cwd: ROOT,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (err += c.toString('utf8')));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise(JSON.parse(out) as string[]) : reject(new Error(`exit ${code}: ${err}`))));
  });
}

describe('optional SDKs load only with their adapter', () => {
  it(
    'the embedded defaults load none of them',
    async () => {
      expect(await loadedSdks({})).toEqual([]);
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'selecting OpenAI, Elasticsearch and S3 loads exactly their SDKs',
    async () => {
      const env = {
        OPENAI_API_KEY: 'sk-test',
        VECTOR_INDEX: 'elasticsearch',
        ELASTICSEARCH_URL: 'http://127.0.0.1:9',
        BLOB_STORE: 's3',
        S3_BUCKET: 'bucket',
      };
      expect((await loadedSdks(env)).sort()).toEqual(['@aws-sdk/client-s3', '@elastic/elasticsearch', 'openai']);
    },
    SPAWN_TIMEOUT_MS,
  );

  it(
    'tracing loads the OpenTelemetry SDK and exporter only when an OTLP endpoint is configured',
    async () => {
      const env = { OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:9' };
      expect((await loadedSdks(env)).sort()).toEqual(['@opentelemetry/exporter-trace-otlp-http', '@opentelemetry/sdk-trace-node']);
    },
    SPAWN_TIMEOUT_MS,
  );
});
