/**
 * What every stack of bin/platform.ts role processes on this machine's real services needs, shared by the split
 * stack (one process a role) and the fault stack (several workers, RabbitMQ behind a proxy the test controls): a
 * scratch database migrated by the `migrate` role, the environment all roles share, spawning a role and waiting
 * until it answers, a process's memory and CPU read from /proc, and the clean-up (the stack's durable queues and
 * exchange on the shared broker, the database, the data folder). No jest globals: benchmarks use it too.
 */
import { type ChildProcess, spawn, type StdioOptions } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { deleteTopology } from '../../adapters/rabbitmq/test-fixtures/broker-admin';
import { consumers } from '../../app/workers';
import { freePort } from './free-port';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database';

export { freePort };

export const ROOT = path.resolve(__dirname, '..', '..');
export const RABBITMQ_URL = process.env.BENCH_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** One role of bin/platform.ts in a process of its own; its logs (stderr) go where `stdio` says (default: ours). */
export function runRole(role: string, env: NodeJS.ProcessEnv, stdio: StdioOptions = ['ignore', 'ignore', 'inherit']): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin', 'platform.ts'), role], { cwd: ROOT, env, stdio });
}

/** Polls `url` until it answers 2xx; fails at once if `child` exits first. */
export async function waitReady(url: string, child: ChildProcess, attempts = 600) {
  for (let i = 0; i < attempts; i++) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`${url}: the process exited with ${child.exitCode ?? child.signalCode}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} never became ready`);
}

/** Resident memory (MB) of a process, from /proc (Linux). */
export const rssMbOf = (pid: number) =>
  Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024);

/** CPU seconds (user + system) a process has used so far: utime and stime, in USER_HZ ticks (100 a second). */
export const cpuSecondsOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
};

/** `read` of each named process; one that has gone reads as 0. */
export function perProcess(children: Record<string, ChildProcess>, read: (pid: number) => number): Record<string, number> {
  return Object.fromEntries(
    Object.entries(children).map(([name, child]) => {
      try {
        return [name, read(child.pid!)];
      } catch {
        return [name, 0];
      }
    }),
  );
}

/** SIGTERM, and SIGKILL if the process is still there after `graceMs`; resolves once it exited. */
export function stopProcess(child: ChildProcess, graceMs = 10_000): Promise<void> {
  return new Promise<void>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGTERM');
    setTimeout(() => child.kill('SIGKILL'), graceMs).unref();
  });
}

/** A migrated scratch database, a data folder, two free ports and the environment every role of the stack shares. */
export interface RoleStackBase {
  scratch: ScratchDatabase;
  dataDir: string;
  apiPort: number;
  gatewayPort: number;
  apiUrl: string;
  gatewayUrl: string;
  env: NodeJS.ProcessEnv;
}

/**
 * Creates the scratch database (named after `label`; its name is also the stack's QUEUE_PREFIX) and runs
 * `migrate` on it. `rabbitUrl` is the broker the roles are given (a proxy in front of the real one, say).
 */
export async function prepareRoleStack(label: string, rabbitUrl: string, extra: Record<string, string> = {}): Promise<RoleStackBase> {
  const scratch = await createScratchDatabase(label);
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `ap-${label.replace(/_/g, '-')}-`));
  const [apiPort, gatewayPort] = [await freePort(), await freePort()];
  const secret = () => randomBytes(24).toString('hex');
  const env: NodeJS.ProcessEnv = {
    ...process.env,
    NODE_ENV: 'production',
    LOG_LEVEL: 'warn',
    DATA_DIR: dataDir,
    DATABASE_URL: scratch.url,
    QUEUE: 'rabbitmq',
    RABBITMQ_URL: rabbitUrl,
    QUEUE_PREFIX: scratch.name,
    REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379',
    RATE_LIMIT_STORE: 'redis',
    NONCE_REGISTRY: 'redis',
    JWT_SECRET: secret(),
    INTERNAL_SECRET: secret(),
    WEBHOOK_SIGNING_SECRET: secret(),
    API_HOST: '127.0.0.1',
    API_PORT: String(apiPort),
    API_URL: `http://127.0.0.1:${apiPort}`,
    HOST: '127.0.0.1',
    PORT: String(gatewayPort),
    PUBLIC_URL: `http://127.0.0.1:${gatewayPort}`,
    APP_URL: `http://127.0.0.1:${gatewayPort}`,
    RATE_LIMIT_PER_IP: '100000000',
    RATE_LIMIT_PER_PRINCIPAL: '100000000',
    ...extra,
  };
  try {
    const migrate = runRole('migrate', env);
    const code = await new Promise<number | null>((resolve) => migrate.once('exit', resolve));
    if (code !== 0) throw new Error(`migrate exited with ${code}`);
  } catch (error) {
    await scratch.drop();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  return { scratch, dataDir, apiPort, gatewayPort, apiUrl: `http://127.0.0.1:${apiPort}`, gatewayUrl, env };
}

/** Starts the api, waits until it is ready, then the gateway (it needs the api), and waits for it. */
export async function startApiAndGateway(base: RoleStackBase, stdio?: (role: string) => StdioOptions) {
  const api = runRole('api', base.env, stdio?.('api'));
  let gateway: ChildProcess | undefined;
  try {
    await waitReady(`${base.apiUrl}/ready`, api);
    gateway = runRole('gateway', base.env, stdio?.('gateway'));
    await waitReady(`${base.gatewayUrl}/health`, gateway);
  } catch (error) {
    await Promise.all([api, gateway].map((child) => child && stopProcess(child, 0)));
    throw error;
  }
  return { api, gateway };
}

/**
 * After the processes stopped: every worker consumer's queue and its dead-letter twin and the bus's exchange
 * (durable, so they would outlive the stack on a broker every later run shares; wait queues expire on their own,
 * a timer-only consumer declared nothing, and deleting a missing queue is a no-op), then the database and the
 * data folder. `rabbitUrl` is the real broker.
 */
export async function removeRoleStack(base: RoleStackBase, rabbitUrl = RABBITMQ_URL): Promise<void> {
  const prefix = base.scratch.name;
  const queues = consumers.flatMap(({ queue }) => [`${prefix}.${queue}`, `${prefix}.${queue}.dead`]);
  await deleteTopology(queues, [`${prefix}.events`], rabbitUrl);
  await base.scratch.drop();
  rmSync(base.dataDir, { recursive: true, force: true });
}
