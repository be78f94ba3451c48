/**
 * The platform as the production stack runs it, on this machine's real services: `migrate`, then `api`, `worker`
 * and `gateway` as three processes (bin/platform.ts) on a scratch database of the local Postgres server (pgvector
 * built by bin/install-pgvector.sh), RabbitMQ with a queue prefix of its own, and Redis for nonces and rate limits.
 * For the split-roles end-to-end suite, and benchmarks that ask what a request path costs when the background work
 * is not on its event loop.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';

import { deleteTopology } from '../../adapters/rabbitmq/test-fixtures/broker-admin';
import { consumers } from '../../app/workers';
import { createScratchDatabase } from './scratch-database';

const ROOT = path.resolve(__dirname, '..', '..');

export interface SplitStack {
  gatewayUrl: string;
  /** The api role reached directly (it answers only requests the gateway signed). */
  apiUrl: string;
  /** The stack's RabbitMQ prefix (QUEUE_PREFIX): its durable queues and exchange are deleted at close. */
  queuePrefix: string;
  /** Resident memory (MB) of each role's process. */
  rssMb(): Record<string, number>;
  /** CPU seconds (user + system) each role's process has used so far. */
  cpuSeconds(): Record<string, number>;
  close(): Promise<void>;
}

async function freePort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

function run(role: string, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(process.execPath, ['--import', 'tsx', path.join(ROOT, 'bin', 'platform.ts'), role], {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'ignore', 'inherit'],
  });
}

async function waitReady(url: string, child: ChildProcess) {
  for (let i = 0; i < 600; i++) {
    if (child.exitCode !== null) throw new Error(`${url}: the process exited with ${child.exitCode}`);
    const ok = await fetch(url).then(
      (r) => r.ok,
      () => false,
    );
    if (ok) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} never became ready`);
}

/**
 * @param workerNice niceness of the worker process (0-19): on a machine whose cores the api shares with the
 *   worker, a niced worker leaves the api the CPU whenever a request needs it (the README's deployment advice).
 */
export async function startSplitStack(extra: Record<string, string> = {}, workerNice = 0): Promise<SplitStack> {
  const scratch = await createScratchDatabase('split_stack');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'ap-bench-split-'));
  const [apiPort, gatewayPort] = [await freePort(), await freePort()];
  const secret = () => randomBytes(24).toString('hex');
  const rabbitUrl = process.env.BENCH_RABBITMQ_URL ?? 'amqp://guest:guest@127.0.0.1:5672';
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
  const migrate = run('migrate', env);
  const code = await new Promise<number | null>((resolve) => migrate.once('exit', resolve));
  if (code !== 0) throw new Error(`migrate exited with ${code}`);
  const children: Record<string, ChildProcess> = { api: run('api', env), worker: run('worker', env) };
  if (workerNice && children.worker.pid) os.setPriority(children.worker.pid, workerNice);
  await waitReady(`http://127.0.0.1:${apiPort}/ready`, children.api);
  children.gateway = run('gateway', env);
  const gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  await waitReady(`${gatewayUrl}/health`, children.gateway);
  // Read from /proc (Linux); a process that has gone reads as 0.
  const perRole = (read: (pid: number) => number) =>
    Object.fromEntries(
      Object.entries(children).map(([role, child]) => {
        try {
          return [role, read(child.pid!)];
        } catch {
          return [role, 0];
        }
      }),
    );
  return {
    gatewayUrl,
    apiUrl: `http://127.0.0.1:${apiPort}`,
    queuePrefix: scratch.name,
    rssMb: () => perRole((pid) => Math.round(Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024)),
    cpuSeconds: () =>
      perRole((pid) => {
        // utime and stime, in USER_HZ ticks (100 a second), after the command name
        const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
        return (Number(fields[11]) + Number(fields[12])) / 100;
      }),
    close: async () => {
      await Promise.all(
        Object.values(children).map(
          (child) =>
            new Promise<void>((resolve) => {
              if (child.exitCode !== null) return resolve();
              child.once('exit', () => resolve());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 10_000).unref();
            }),
        ),
      );
      // Every worker consumer's queue and its dead-letter twin, and the bus's exchange: durable, so they would
      // outlive the stack on a broker every later run shares (wait queues expire on their own; a timer-only
      // consumer declared nothing, and deleting a missing queue is a no-op).
      const queues = consumers.flatMap(({ queue }) => [`${scratch.name}.${queue}`, `${scratch.name}.${queue}.dead`]);
      await deleteTopology(queues, [`${scratch.name}.events`], rabbitUrl);
      await scratch.drop();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
