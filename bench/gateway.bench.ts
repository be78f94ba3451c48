/**
 * Gateway overhead: the same small JSON endpoint called directly on the upstream and through the gateway
 * with a valid JWT, in the same run. The upstream and the load generator run in child processes so neither
 * steals the gateway's event loop (the gateway runs in this process).
 *
 *   npx tsx bench/gateway.bench.ts            writes bench/results/gateway.json
 *
 * A bare keep-alive proxy runs alongside as a baseline, to tell the cost of the extra hop (inherent to any
 * proxy on the same cores) from the cost of the gateway's own work (path check, limits, JWT, signing).
 *
 * Figures: autocannon requests/s and p50/p99 latency (autocannon's histogram has 1 ms resolution), plus a
 * sequential keep-alive probe (one request at a time, hrtime) that measures the added latency in microseconds.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { mkdir, writeFile } from 'node:fs/promises';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { Hs256TokenSigner } from '../adapters/crypto/hs256.token-signer';
import { InProcessRateLimitStore } from '../adapters/memory/in-process.rate-limit-store';
import { createGateway } from '../gateway/create-gateway';

export interface GatewayBenchOptions {
  connections?: number;
  durationSeconds?: number;
  warmupSeconds?: number;
  probeRequests?: number;
  /** Direct and gateway runs alternate this many times; figures are the means (drift hits both alike). */
  rounds?: number;
  /** Where to write the JSON result; null to skip writing. */
  resultsPath?: string | null;
}

export interface LoadFigures {
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  errors: number;
  non2xx: number;
}

export interface ProbeFigures {
  p50Ms: number;
  p99Ms: number;
  meanMs: number;
}

export interface GatewayBenchResult {
  date: string;
  node: string;
  cpus: number;
  config: Required<Omit<GatewayBenchOptions, 'resultsPath'>>;
  direct: { load: LoadFigures; probe: ProbeFigures; runs: LoadFigures[] };
  gateway: { load: LoadFigures; probe: ProbeFigures; runs: LoadFigures[] };
  /** A bare node:http keep-alive proxy in the same process (no checks, no signing): the cost of the hop alone. */
  bareProxy: { load: LoadFigures; runs: LoadFigures[] };
  ratios: {
    /** Gateway throughput over bare-proxy throughput: what the gateway's own checks cost. */
    gatewayVsBareProxy: number;
    throughputRatio: number;
    addedP50Ms: number;
    addedP99Ms: number;
    probeAddedP50Ms: number;
    probeAddedP99Ms: number;
  };
  targets: { minThroughputRatio: number; maxAddedP50Ms: number; throughputMet: boolean; addedP50Met: boolean };
}

const ROOT = path.resolve(__dirname, '..');

const UPSTREAM_SCRIPT = `
const http = require('node:http');
const body = JSON.stringify({ ok: true, service: 'ping' });
const server = http.createServer((req, res) => {
  if (req.method === 'GET' && req.url === '/api/ping') {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) });
    res.end(body);
  } else {
    res.writeHead(404, { 'content-length': 0 });
    res.end();
  }
});
server.keepAliveTimeout = 65000;
server.listen(0, '127.0.0.1', () => process.stdout.write(JSON.stringify({ port: server.address().port }) + '\\n'));
process.on('disconnect', () => process.exit(0));
`;

const LOAD_SCRIPT = `
const cfg = JSON.parse(process.env.BENCH_CFG);
const out = (v) => process.stdout.write(JSON.stringify(v));
if (cfg.mode === 'autocannon') {
  const autocannon = require('autocannon');
  autocannon({ url: cfg.url, connections: cfg.connections, duration: cfg.duration, headers: cfg.headers }, (err, r) => {
    if (err) { console.error(err); process.exit(1); }
    out({ rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, errors: r.errors + r.timeouts, non2xx: r.non2xx });
  });
} else {
  const http = require('node:http');
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
  const u = new URL(cfg.url);
  const times = [];
  const once = () => new Promise((resolve, reject) => {
    const t0 = process.hrtime.bigint();
    http.get({ host: u.hostname, port: u.port, path: u.pathname, headers: cfg.headers, agent }, (res) => {
      res.resume();
      res.on('end', () => { times.push(Number(process.hrtime.bigint() - t0) / 1e6); resolve(); });
    }).on('error', reject);
  });
  (async () => {
    for (let i = 0; i < 200; i++) await once();
    times.length = 0;
    for (let i = 0; i < cfg.requests; i++) await once();
    times.sort((a, b) => a - b);
    const at = (q) => times[Math.min(times.length - 1, Math.floor(q * times.length))];
    out({ p50: at(0.5), p99: at(0.99), mean: times.reduce((a, b) => a + b, 0) / times.length });
    agent.destroy();
  })().catch((e) => { console.error(e); process.exit(1); });
}
`;

function runChild(script: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', script], {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    let out = '';
    child.stdout.setEncoding('utf8');
    child.stdout.on('data', (c: string) => (out += c));
    child.on('error', reject);
    child.on('exit', (code) => (code === 0 ? resolve(out) : reject(new Error(`load generator exited with ${code}`))));
  });
}

function startUpstream(): Promise<{ child: ChildProcess; port: number }> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, ['-e', UPSTREAM_SCRIPT], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit', 'ipc'] });
    let buf = '';
    child.stdout!.setEncoding('utf8');
    child.stdout!.on('data', (c: string) => {
      buf += c;
      const line = buf.split('\n')[0];
      if (buf.includes('\n') && line) resolve({ child, port: (JSON.parse(line) as { port: number }).port });
    });
    child.on('error', reject);
    child.on('exit', (code) => reject(new Error(`upstream exited with ${code}`)));
  });
}

async function load(url: string, headers: Record<string, string>, connections: number, duration: number): Promise<LoadFigures> {
  const r = JSON.parse(
    await runChild(LOAD_SCRIPT, { BENCH_CFG: JSON.stringify({ mode: 'autocannon', url, headers, connections, duration }) }),
  ) as {
    rps: number;
    p50: number;
    p99: number;
    errors: number;
    non2xx: number;
  };
  return { requestsPerSecond: Math.round(r.rps), p50Ms: r.p50, p99Ms: r.p99, errors: r.errors, non2xx: r.non2xx };
}

async function probe(url: string, headers: Record<string, string>, requests: number): Promise<ProbeFigures> {
  const r = JSON.parse(await runChild(LOAD_SCRIPT, { BENCH_CFG: JSON.stringify({ mode: 'probe', url, headers, requests }) })) as {
    p50: number;
    p99: number;
    mean: number;
  };
  const round = (v: number) => Math.round(v * 1000) / 1000;
  return { p50Ms: round(r.p50), p99Ms: round(r.p99), meanMs: round(r.mean) };
}

const round3 = (v: number) => Math.round(v * 1000) / 1000;

function mean(runs: LoadFigures[]): LoadFigures {
  const avg = (pick: (r: LoadFigures) => number) => round3(runs.reduce((a, r) => a + pick(r), 0) / runs.length);
  return {
    requestsPerSecond: Math.round(avg((r) => r.requestsPerSecond)),
    p50Ms: avg((r) => r.p50Ms),
    p99Ms: avg((r) => r.p99Ms),
    errors: runs.reduce((a, r) => a + r.errors, 0),
    non2xx: runs.reduce((a, r) => a + r.non2xx, 0),
  };
}

/** The hop alone: forwards everything unchanged over a keep-alive agent. */
function startBareProxy(upstreamPort: number): Promise<{ server: http.Server; agent: http.Agent; port: number }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024 });
  const server = http.createServer((req, res) => {
    const up = http.request(
      { host: '127.0.0.1', port: upstreamPort, method: req.method, path: req.url, headers: req.headers, agent },
      (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      },
    );
    up.on('error', () => res.destroy());
    req.pipe(up);
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => resolve({ server, agent, port: (server.address() as AddressInfo).port })),
  );
}

export async function runGatewayBench(options: GatewayBenchOptions = {}): Promise<GatewayBenchResult> {
  const config = {
    connections: options.connections ?? 10,
    durationSeconds: options.durationSeconds ?? 5,
    warmupSeconds: options.warmupSeconds ?? 1,
    probeRequests: options.probeRequests ?? 3000,
    rounds: options.rounds ?? 2,
  };
  const resultsPath = options.resultsPath === undefined ? path.join(ROOT, 'bench/results/gateway.json') : options.resultsPath;

  const upstream = await startUpstream();
  const clock = { now: () => new Date() };
  const signer = new Hs256TokenSigner({ secret: 'bench-jwt-secret-0123456789abcdefghijkl', clock });
  const gateway = createGateway({
    upstream: { host: '127.0.0.1', port: upstream.port },
    tokenSigner: signer,
    verifyApiKey: async () => null,
    rateLimitStore: new InProcessRateLimitStore(),
    limits: { perIp: { limit: 1e9, windowSeconds: 60 }, perPrincipal: { limit: 1e9, windowSeconds: 60 } },
    internalSecret: 'bench-internal-secret',
    clock,
  });
  const { port } = await gateway.listen(0, '127.0.0.1');
  const bare = await startBareProxy(upstream.port);
  const iat = Math.floor(Date.now() / 1000);
  const token = signer.sign({
    typ: 'access',
    userId: '3f1c2a9e-8d4b-4c61-9a57-0b6e2f7d1c11',
    email: 'bench@example.com',
    platformRole: 'user',
    organizations: [{ id: '9b2d7e41-5c3a-4f88-b1e6-27d4c0a8f932', name: 'Bench', slug: 'bench', role: 'owner' }],
    iat,
    exp: iat + 3600,
  });
  const directUrl = `http://127.0.0.1:${upstream.port}/api/ping`;
  const gatewayUrl = `http://127.0.0.1:${port}/api/ping`;
  const bareUrl = `http://127.0.0.1:${bare.port}/api/ping`;
  const auth = { authorization: `Bearer ${token}` };
  const { connections, durationSeconds, warmupSeconds, probeRequests, rounds } = config;

  try {
    await load(directUrl, {}, connections, warmupSeconds);
    await load(bareUrl, {}, connections, warmupSeconds);
    await load(gatewayUrl, auth, connections, warmupSeconds);
    const directRuns: LoadFigures[] = [];
    const gatewayRuns: LoadFigures[] = [];
    const bareRuns: LoadFigures[] = [];
    for (let i = 0; i < rounds; i++) {
      directRuns.push(await load(directUrl, {}, connections, durationSeconds));
      gatewayRuns.push(await load(gatewayUrl, auth, connections, durationSeconds));
      bareRuns.push(await load(bareUrl, {}, connections, durationSeconds));
    }
    const directLoad = mean(directRuns);
    const gatewayLoad = mean(gatewayRuns);
    const bareLoad = mean(bareRuns);
    const directProbe = await probe(directUrl, {}, probeRequests);
    const gatewayProbe = await probe(gatewayUrl, auth, probeRequests);
    if (gatewayLoad.non2xx > 0 || gatewayLoad.errors > 0)
      throw new Error(`gateway answered ${gatewayLoad.non2xx} non-2xx, ${gatewayLoad.errors} errors`);

    const result: GatewayBenchResult = {
      date: new Date().toISOString(),
      node: process.version,
      cpus: os.cpus().length,
      config,
      direct: { load: directLoad, probe: directProbe, runs: directRuns },
      gateway: { load: gatewayLoad, probe: gatewayProbe, runs: gatewayRuns },
      bareProxy: { load: bareLoad, runs: bareRuns },
      ratios: {
        gatewayVsBareProxy: round3(gatewayLoad.requestsPerSecond / bareLoad.requestsPerSecond),
        throughputRatio: round3(gatewayLoad.requestsPerSecond / directLoad.requestsPerSecond),
        addedP50Ms: round3(gatewayLoad.p50Ms - directLoad.p50Ms),
        addedP99Ms: round3(gatewayLoad.p99Ms - directLoad.p99Ms),
        probeAddedP50Ms: round3(gatewayProbe.p50Ms - directProbe.p50Ms),
        probeAddedP99Ms: round3(gatewayProbe.p99Ms - directProbe.p99Ms),
      },
      targets: { minThroughputRatio: 0.8, maxAddedP50Ms: 1, throughputMet: false, addedP50Met: false },
    };
    result.targets.throughputMet = result.ratios.throughputRatio >= result.targets.minThroughputRatio;
    result.targets.addedP50Met = result.ratios.addedP50Ms < 1 && result.ratios.probeAddedP50Ms < 1;
    if (resultsPath) {
      await mkdir(path.dirname(resultsPath), { recursive: true });
      await writeFile(resultsPath, `${JSON.stringify(result, null, 2)}\n`);
    }
    return result;
  } finally {
    await gateway.close(0);
    bare.server.closeAllConnections();
    bare.server.close();
    bare.agent.destroy();
    upstream.child.kill();
  }
}

if (require.main === module) {
  runGatewayBench()
    .then((r) => {
      const { direct, gateway, bareProxy, ratios, targets } = r;
      const summary = {
        direct: { ...direct, runs: undefined },
        gateway: { ...gateway, runs: undefined },
        bareProxy: bareProxy.load,
        ratios,
        targets,
      };
      process.stdout.write(`${JSON.stringify(summary, null, 2)}\n`);
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}
