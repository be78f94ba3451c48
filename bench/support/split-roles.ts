/**
 * The production shape for the auth/me bench: the `api` and `gateway` roles in their own processes, as
 * docker-compose and the Helm chart run them, on the local Postgres server with Redis (rate limits, nonces) and
 * RabbitMQ (the event bus, which the identity cache needs across processes). CPU time is read from /proc for
 * both processes.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { createScratchDatabase } from '../../test/support/scratch-database';
import { autocannon, mean, type Run } from './autocannon';

const ROOT = path.resolve(__dirname, '..', '..');
const TICKS_PER_SECOND = 100; // USER_HZ on Linux

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** CPU seconds (user + system) a process has used, from /proc. */
const cpuSeconds = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
};

async function answering(url: string, child: ChildProcess, timeoutMs: number, log: () => string) {
  const until = Date.now() + timeoutMs;
  while (Date.now() < until) {
    if (child.exitCode !== null) throw new Error(`exited (${child.exitCode}): ${log().slice(-400)}`);
    if (
      await fetch(url).then(
        () => true,
        () => false,
      )
    )
      return;
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`no answer from ${url} in ${timeoutMs} ms: ${log().slice(-400)}`);
}

/** SIGTERM (a graceful close), then SIGKILL if the process is still there after 10 s. */
async function stopped(child: ChildProcess) {
  if (child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((r) => child.once('exit', r));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
  await exited;
  clearTimeout(timer);
}

function role(name: 'api' | 'gateway', env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', 'bin/platform.ts', name], {
    cwd: ROOT,
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  return { child, log: () => output };
}

export interface SplitRoles {
  rssAfterBootMb: { api: number; gateway: number };
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  non2xx: number;
  cpuMicrosPerRequest: { api: number; gateway: number };
}

/** Boots api and gateway on a scratch database and loads GET `pathname` through the gateway. */
export async function splitRolesFigures(pathname: string, seconds: number, connections: number, rounds: number): Promise<SplitRoles> {
  const database = await createScratchDatabase('bench_split_roles');
  const dataDir = await mkdtemp(path.join(os.tmpdir(), 'ap-bench-split-'));
  const [apiPort, gatewayPort] = [await freePort(), await freePort()];
  const secret = () => randomBytes(32).toString('hex');
  const shared = {
    DATABASE_URL: database.url,
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    RABBITMQ_URL: process.env.BENCH_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672',
    JWT_SECRET: secret(),
    INTERNAL_SECRET: secret(),
    WEBHOOK_SIGNING_SECRET: secret(),
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    RATE_LIMIT_PER_IP: '100000000',
    RATE_LIMIT_PER_PRINCIPAL: '100000000',
  };
  const api = role('api', { ...shared, API_PORT: String(apiPort) });
  let gateway: ReturnType<typeof role> | undefined;
  try {
    await answering(`http://127.0.0.1:${apiPort}/`, api.child, 90_000, api.log);
    gateway = role('gateway', { ...shared, PORT: String(gatewayPort), API_URL: `http://127.0.0.1:${apiPort}` });
    const base = `http://127.0.0.1:${gatewayPort}`;
    await answering(`${base}/`, gateway.child, 90_000, gateway.log);
    const rss = (pid: number) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))![1]) / 1024);
    const rssAfterBootMb = { api: rss(api.child.pid!), gateway: rss(gateway.child.pid!) };
    const reg = await fetch(`${base}/api/auth/register`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: 'bench-split@example.com', password: 'bench-password-1' }),
    });
    const token = ((await reg.json()) as { data: { accessToken: string } }).data.accessToken;
    const headers = { authorization: `Bearer ${token}` };
    await autocannon(`${base}${pathname}`, headers, 2, connections); // warm-up
    const runs: Run[] = [];
    let answered = 0;
    const cpu0 = { api: cpuSeconds(api.child.pid!), gateway: cpuSeconds(gateway.child.pid!) };
    for (let i = 0; i < rounds; i++) {
      const run = await autocannon(`${base}${pathname}`, headers, seconds, connections);
      runs.push(run);
      answered += run.requestsPerSecond * seconds;
    }
    const perRequest = (pid: number, since: number) => ((cpuSeconds(pid) - since) * 1e6) / Math.max(1, answered);
    return {
      rssAfterBootMb,
      requestsPerSecond: mean(runs, 'requestsPerSecond'),
      p50Ms: mean(runs, 'p50Ms'),
      p99Ms: mean(runs, 'p99Ms'),
      non2xx: mean(runs, 'non2xx'),
      cpuMicrosPerRequest: { api: perRequest(api.child.pid!, cpu0.api), gateway: perRequest(gateway.child.pid!, cpu0.gateway) },
    };
  } finally {
    for (const { child } of [gateway, api].filter((r) => r !== undefined)) await stopped(child);
    await database.drop();
    await rm(dataDir, { recursive: true, force: true });
  }
}
