/**
 * What observability costs a light request: GET /api/auth/me through the gateway (embedded `start` role) with
 * (a) request log lines off (LOG_LEVEL=warn) and tracing off, the baseline; (b) one pino line per request
 * written to /dev/null, tracing off (the default set-up); (c) the same plus OpenTelemetry tracing exported over
 * OTLP/HTTP JSON to a local sink. The three platforms run in one process and take turns round by round.
 *
 *   npx tsx bench/observability.bench.ts     writes bench/results/observability.json
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import pino from 'pino';

import { ScryptPasswordHasher } from '../adapters/crypto/scrypt.password-hasher';
import { loadConfig } from '../app/configuration';
import { startPlatform } from '../app/platform';
import { autocannon, mean, type Run } from './support/autocannon';
import { benchSession } from './support/bench-session';

const ROOT = path.resolve(__dirname, '..');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 3);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const PATHNAME = '/api/auth/me';

const figures = (runs: Run[]) => ({
  requestsPerSecond: mean(runs, 'requestsPerSecond'),
  p50Ms: mean(runs, 'p50Ms'),
  p99Ms: mean(runs, 'p99Ms'),
  non2xx: mean(runs, 'non2xx'),
});

/** Accepts OTLP exports and counts the spans' bytes (a collector that does nothing else). */
async function otlpSink(): Promise<{ url: string; exports: () => number; close(): Promise<void> }> {
  let exports = 0;
  const server = http.createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      exports++;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    exports: () => exports,
    close: () => new Promise((r) => server.close(() => r())),
  };
}

interface Setup {
  label: string;
  url: string;
  headers: Record<string, string>;
  runs: Run[];
  close(): Promise<void>;
}

async function boot(label: string, env: Record<string, string>): Promise<Setup> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-obs-'));
  const config = loadConfig('start', {
    DATA_DIR: dataDir,
    PORT: '0',
    API_PORT: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_IP: '100000000',
    RATE_LIMIT_PER_PRINCIPAL: '100000000',
    ...env,
  });
  const platform = await startPlatform(config, {
    passwords: new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }),
    logDestination: pino.destination({ dest: '/dev/null', sync: true }),
  });
  const { gatewayHeaders } = await benchSession(platform.gatewayUrl, config.secrets.internal, PATHNAME);
  return {
    label,
    url: `${platform.gatewayUrl}${PATHNAME}`,
    headers: gatewayHeaders,
    runs: [],
    close: async () => {
      await platform.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

async function main() {
  const sink = await otlpSink();
  // All three live in this process at once and take turns, so a shared machine's drift hits each alike.
  // Only one traces: OpenTelemetry's provider is global to the process.
  const setups: Setup[] = [];
  try {
    setups.push(await boot('baseline', {}));
    setups.push(await boot('requestLogs', { LOG_LEVEL: 'info' }));
    setups.push(await boot('requestLogsAndTraces', { LOG_LEVEL: 'info', OTEL_EXPORTER_OTLP_ENDPOINT: sink.url }));
    for (const s of setups) await autocannon(s.url, s.headers, 1, CONNECTIONS); // warm-up
    for (let i = 0; i < ROUNDS; i++) {
      for (const s of setups) s.runs.push(await autocannon(s.url, s.headers, SECONDS, CONNECTIONS));
    }
    const [baseline, logs, traced] = setups.map((s) => figures(s.runs)) as [
      ReturnType<typeof figures>,
      ReturnType<typeof figures>,
      ReturnType<typeof figures>,
    ];
    const result = {
      date: new Date().toISOString(),
      machine: 'loaded (2 cores shared with other engineers)',
      node: process.version,
      cpus: os.cpus().length,
      endpoint: `GET ${PATHNAME} through the gateway`,
      connections: CONNECTIONS,
      secondsPerRun: SECONDS,
      rounds: ROUNDS,
      baseline,
      requestLogs: logs,
      requestLogsAndTraces: traced,
      perRoundRequestsPerSecond: Object.fromEntries(setups.map((s) => [s.label, s.runs.map((r) => Math.round(r.requestsPerSecond))])),
      otlpExportsReceived: sink.exports(),
      ratios: {
        requestLogsVsBaseline: logs.requestsPerSecond / baseline.requestsPerSecond,
        requestLogsAndTracesVsBaseline: traced.requestsPerSecond / baseline.requestsPerSecond,
        p50RequestLogsAndTracesVsBaseline: traced.p50Ms / baseline.p50Ms,
      },
      note: 'Baseline: LOG_LEVEL=warn (no request lines), no tracing. Request lines go to /dev/null through pino; spans to a local OTLP sink. Rounds interleaved.',
    };
    await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
    await writeFile(path.join(ROOT, 'bench/results/observability.json'), `${JSON.stringify(result, null, 2)}\n`);
    process.stdout.write(`${JSON.stringify({ ...result.perRoundRequestsPerSecond, ...result.ratios })}\n`);
  } finally {
    for (const s of setups) await s.close();
    await sink.close();
  }
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
