/**
 * Throughput of GET /api/auth/me (issue 7): through the gateway and on the api directly, on the embedded
 * default (PGlite in its worker thread) and, when the local Postgres server answers, with DATABASE_URL;
 * against a bare node:http server in its own process, measured in every round beside them. Also the resident
 * memory after boot. On the Postgres server, `start` runs one HTTP process per core by default (HTTP_PROCESSES).
 *
 *   npx tsx bench/auth-me-throughput.bench.ts     writes bench/results/auth-me-throughput.json
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import pg from 'pg';

import { ScryptPasswordHasher } from '../adapters/crypto/scrypt.password-hasher';
import { loadConfig } from '../app/configuration';
import { startPlatform } from '../app/platform';
import { autocannon, mean, type Run } from './support/autocannon';
import { acceptRepeats, benchSession } from './support/bench-session';
import { splitRolesFigures } from './support/split-roles';

const ROOT = path.resolve(__dirname, '..');
const CONNECTIONS = Number(process.env.BENCH_CONNECTIONS ?? 10);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 4);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 2);
const PATHNAME = '/api/auth/me';
const mb = (bytes: number) => Math.round(bytes / 1024 / 1024);

type Measured = Run & { cpuMicrosPerRequest: number };

const figures = (runs: Measured[]) => ({
  requestsPerSecond: mean(runs, 'requestsPerSecond'),
  p50Ms: mean(runs, 'p50Ms'),
  p99Ms: mean(runs, 'p99Ms'),
  non2xx: mean(runs, 'non2xx'),
  // CPU time of this process (all its threads; autocannon runs in a child) per answered request: on a machine
  // shared with other work it moves far less than requests/s, which waits for a core.
  cpuMicrosPerRequest: runs.reduce((s, r) => s + r.cpuMicrosPerRequest, 0) / runs.length,
});

/** One load run of `url`, with the CPU time `cpuMicros` reads (this process's by default) per answered request. */
async function measured(url: string, headers: Record<string, string>, cpuMicros = ownCpuMicros): Promise<Measured> {
  const since = await cpuMicros();
  const run = await autocannon(url, headers, SECONDS, CONNECTIONS);
  return { ...run, cpuMicrosPerRequest: ((await cpuMicros()) - since) / Math.max(1, run.requestsPerSecond * SECONDS) };
}

async function ownCpuMicros(): Promise<number> {
  const cpu = process.cpuUsage();
  return cpu.user + cpu.system;
}

/** This process's CPU time plus its HTTP replicas' (Linux /proc; clock ticks of 10 ms). */
function withReplicasCpuMicros(pids: () => number[]) {
  return async () => (await ownCpuMicros()) + pids().reduce((sum, pid) => sum + procStat(pid).cpuMicros, 0);
}

function procStat(pid: number): { cpuMicros: number; rssMb: number } {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
    return { cpuMicros: (Number(fields[11]) + Number(fields[12])) * 10_000, rssMb: mb(Number(fields[21]) * 4096) };
  } catch {
    return { cpuMicros: 0, rssMb: 0 };
  }
}

/** The baseline's server, alone in its own node process: it answers the same JSON, and reports its CPU time. */
const BARE_SERVER = `
const body = JSON.stringify({ data: { id: 'u', email: 'bench@example.com' } });
const server = require('node:http').createServer((_req, res) => {
  res.writeHead(200, { 'content-type': 'application/json' });
  res.end(body);
});
server.listen(0, '127.0.0.1', () => process.send({ port: server.address().port }));
process.on('message', () => process.send({ cpu: process.cpuUsage() }));
process.on('disconnect', () => process.exit(0));
`;

/**
 * A bare node:http server in a process of its own (so it pays none of the platform's background costs), measured
 * in every round beside the platform.
 */
async function startBareNodeHttp() {
  const child = spawn(process.execPath, ['-e', BARE_SERVER], { stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
  const ask = <T>(message?: string) =>
    new Promise<T>((resolve) => {
      child.once('message', (m) => resolve(m as T));
      if (message !== undefined) child.send(message);
    });
  const { port } = await ask<{ port: number }>();
  const cpuMicros = async () => {
    const { cpu } = await ask<{ cpu: NodeJS.CpuUsage }>('cpu');
    return cpu.user + cpu.system;
  };
  const url = `http://127.0.0.1:${port}${PATHNAME}`;
  await autocannon(url, {}, 1, CONNECTIONS); // warm-up
  const runs: Measured[] = [];
  return {
    runs,
    measure: async () => {
      const run = await measured(url, {}, cpuMicros);
      runs.push(run);
      return run;
    },
    close: () => void child.disconnect(),
  };
}
type Bare = Awaited<ReturnType<typeof startBareNodeHttp>>;

/**
 * The platform's figures against the bare server's of the same rounds: the machine's speed drifts by a factor of
 * two within minutes here, so each round measures bare, direct and gateway back to back, and the ratios are the
 * means of the rounds' own ratios.
 */
function paired(bare: Measured[], direct: Measured[], gateway: Measured[]) {
  const meanOf = (f: (i: number) => number) => bare.reduce((s, _b, i) => s + f(i), 0) / bare.length;
  return {
    bare: figures(bare),
    direct: figures(direct),
    gateway: figures(gateway),
    ratios: {
      gatewayVsBare: meanOf((i) => gateway[i]!.requestsPerSecond / bare[i]!.requestsPerSecond),
      gatewayVsDirect: meanOf((i) => gateway[i]!.requestsPerSecond / direct[i]!.requestsPerSecond),
      gatewayCpuPerRequestVsBare: meanOf((i) => gateway[i]!.cpuMicrosPerRequest / bare[i]!.cpuMicrosPerRequest),
    },
  };
}

async function platformFigures(bare: Bare, databaseUrl?: string) {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-me-'));
  const config = loadConfig('start', {
    DATA_DIR: dataDir,
    PORT: '0',
    API_PORT: '0',
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_IP: '100000000',
    RATE_LIMIT_PER_PRINCIPAL: '100000000',
    SIGNATURE_MAX_AGE_MS: '60000',
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
  });
  // The direct figure replays one pre-signed request, so both paths accept repeated nonces.
  const platform = await startPlatform(config, { passwords: new ScryptPasswordHasher({ N: 1024, r: 8, p: 1 }), nonces: acceptRepeats });
  global.gc?.();
  const rssAfterBootMb = mb(process.memoryUsage().rss);
  const replicasRss = () => platform.replicaPids().map((pid) => procStat(pid).rssMb);
  const replicasRssAfterBootMb = replicasRss();
  const cpu = withReplicasCpuMicros(() => platform.replicaPids());
  try {
    const { gatewayHeaders, directHeaders } = await benchSession(platform.gatewayUrl, config.secrets.internal, PATHNAME);
    await autocannon(`${platform.apiUrl}${PATHNAME}`, directHeaders(), 1, CONNECTIONS); // warm-up
    await autocannon(`${platform.gatewayUrl}${PATHNAME}`, gatewayHeaders, 1, CONNECTIONS);
    const baseline: Measured[] = [];
    const direct: Measured[] = [];
    const gateway: Measured[] = [];
    for (let i = 0; i < ROUNDS; i++) {
      baseline.push(await bare.measure());
      direct.push(await measured(`${platform.apiUrl}${PATHNAME}`, directHeaders(), cpu));
      gateway.push(await measured(`${platform.gatewayUrl}${PATHNAME}`, gatewayHeaders, cpu));
    }
    return {
      httpProcesses: config.httpProcesses,
      rssAfterBootMb,
      rssAfterLoadMb: mb(process.memoryUsage().rss),
      ...(replicasRssAfterBootMb.length ? { replicasRssAfterBootMb, replicasRssAfterLoadMb: replicasRss() } : {}),
      ...paired(baseline, direct, gateway),
    };
  } finally {
    await platform.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** A scratch database on the local Postgres server (BENCH_POSTGRES_ADMIN_URL), dropped afterwards. */
async function postgresFigures(bare: Bare) {
  const adminUrl = process.env.BENCH_POSTGRES_ADMIN_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
  const name = `ap_bench_auth_me_${Date.now()}`;
  const admin = async (sql: string) => {
    const c = new pg.Client({ connectionString: adminUrl });
    await c.connect();
    await c.query(sql).finally(() => c.end());
  };
  try {
    await admin(`CREATE DATABASE ${name}`);
  } catch (e) {
    return { skipped: `no local Postgres server: ${(e as Error).message}` };
  }
  const url = new URL(adminUrl);
  url.pathname = `/${name}`;
  try {
    return await platformFigures(bare, url.toString());
  } catch (e) {
    return { skipped: `the platform did not boot on the local Postgres server: ${(e as Error).message}` };
  } finally {
    await admin(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
  }
}

const loadAverage = () => os.loadavg().map((l) => +l.toFixed(2));

async function main() {
  const loadAverageAtStart = loadAverage();
  const bareServer = await startBareNodeHttp();
  const embedded = await platformFigures(bareServer);
  const postgres = await postgresFigures(bareServer);
  bareServer.close();
  const bare = figures(bareServer.runs);
  const splitRoles = await splitRolesFigures(PATHNAME, SECONDS, CONNECTIONS, ROUNDS).catch((e: Error) => ({
    skipped: `the split roles did not run (they need Postgres, Redis and RabbitMQ here): ${e.message}`,
  }));
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    endpoint: `GET ${PATHNAME}`,
    connections: CONNECTIONS,
    secondsPerRun: SECONDS,
    rounds: ROUNDS,
    loadAverageAtStart,
    loadAverageAtEnd: loadAverage(),
    bareNodeHttp: bare,
    embedded,
    postgres,
    // Information, no target: api, worker and gateway in their own processes with Redis and RabbitMQ, as deployed.
    splitRoles:
      'skipped' in splitRoles
        ? splitRoles
        : {
            ...splitRoles,
            ratios: {
              gatewayVsBare: splitRoles.requestsPerSecond / bare.requestsPerSecond,
              ...('skipped' in postgres ? {} : { vsStartOnPostgres: splitRoles.requestsPerSecond / postgres.gateway.requestsPerSecond }),
            },
          },
    targets: { embeddedGatewayVsBare: 0.1, postgresGatewayVsBare: 0.2, gatewayVsDirect: 0.8 },
    note:
      'Same process for gateway, api and (embedded) database thread, as in `npm start`; autocannon and the bare server run in child processes. ' +
      'On the Postgres server `start` runs HTTP_PROCESSES processes (default one per core): this one and its HTTP replicas, which take turns at the connections; ' +
      "`direct` reaches this process's api only, and the CPU figures add the replicas' CPU time. " +
      "Each round measures the bare server, the api directly and the gateway back to back; a store's ratios are the means of its rounds' ratios, `bareNodeHttp` the mean of every round.",
  };
  await mkdir(path.join(ROOT, 'bench/results'), { recursive: true });
  await writeFile(path.join(ROOT, 'bench/results/auth-me-throughput.json'), `${JSON.stringify(result, null, 2)}\n`);
  const line = (p: typeof embedded) => ({
    bare: p.bare.requestsPerSecond,
    gateway: p.gateway.requestsPerSecond,
    direct: p.direct.requestsPerSecond,
    gatewayCpuMicros: p.gateway.cpuMicrosPerRequest,
    directCpuMicros: p.direct.cpuMicrosPerRequest,
    ...p.ratios,
  });
  process.stdout.write(
    `${JSON.stringify({ load: result.loadAverageAtEnd, bare: bare.requestsPerSecond, bareCpuMicros: bare.cpuMicrosPerRequest, embedded: line(embedded), postgres: 'skipped' in postgres ? postgres : line(postgres), splitRoles: result.splitRoles, rssAfterBootMb: embedded.rssAfterBootMb })}\n`,
  );
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});
