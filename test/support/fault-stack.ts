/**
 * The production shape for fault injection (docs/contracts.md "Delivery guarantees"): `migrate`, then gateway, api and N
 * worker processes of bin/platform.ts on a scratch database of the local Postgres server, Redis, and RabbitMQ
 * reached through a TCP proxy this stack controls (`cutBroker()` drops every connection and refuses new ones;
 * the shared broker itself is never stopped). JOB_LEASE_SECONDS is small (3 by default) so a job whose worker
 * died is taken up again within seconds. `killWorker(i)` SIGKILLs worker i, `startWorker(i)` starts a fresh
 * process in its place; `db` is a direct connection to the scratch database for the invariant queries.
 * Each process's log (stderr) goes to <logDir>/<role>.log (kept after close with FAULT_STACK_KEEP_LOGS=1).
 * No jest globals: the delivery-soak benchmark runs it too.
 */
import type { ChildProcess } from 'node:child_process';
import { closeSync, cpSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import pg from 'pg';

import {
  cpuSecondsOf,
  freePort,
  perProcess,
  prepareRoleStack,
  RABBITMQ_URL,
  removeRoleStack,
  runRole,
  startApiAndGateway,
  stopProcess,
  waitReady,
} from './role-processes';
import { TcpProxy } from './tcp-proxy';

export interface FaultStackOptions {
  /** Worker processes (default 2). */
  workers?: number;
  /** JOB_LEASE_SECONDS of every role (default 3). */
  leaseSeconds?: number;
  /** More environment for every role. */
  extra?: Record<string, string>;
}

export interface FaultStack {
  gatewayUrl: string;
  apiUrl: string;
  queuePrefix: string;
  leaseSeconds: number;
  /** A direct connection to the stack's scratch database (not through any proxy). */
  db: pg.Pool;
  workerCount: number;
  /** SIGKILLs worker i; resolves once the process is gone. */
  killWorker(i: number): Promise<void>;
  /** Starts a fresh worker process as worker i (the previous one must be gone); resolves once it consumes, with the ms that took. */
  startWorker(i: number): Promise<number>;
  workerAlive(i: number): boolean;
  /** When worker i's current process became ready (ms since the epoch); null while it is booting or dead. */
  workerReadySince(i: number): number | null;
  /** SIGKILLs the api process; resolves once it is gone. */
  killApi(): Promise<void>;
  /** Starts a fresh api process (the previous one must be gone); resolves once it is ready. */
  startApi(): Promise<void>;
  /** Drops every connection to RabbitMQ (all roles) and refuses new ones until `restoreBroker()`. */
  cutBroker(): Promise<void>;
  restoreBroker(): Promise<void>;
  /** CPU seconds used so far by `api`, `gateway`, `worker0`, ... (a worker slot counts its killed processes too). */
  cpuSeconds(): Record<string, number>;
  /** Where each process writes its log: `<role>.log`, workers `worker<i>.log` (restarts append). */
  logDir: string;
  /** Lines of the processes' logs that contain `text` (e.g. '"level":"error"'). */
  logLines(text: string): string[];
  close(): Promise<void>;
}

export async function startFaultStack(options: FaultStackOptions = {}): Promise<FaultStack> {
  const workerCount = options.workers ?? 2;
  const leaseSeconds = options.leaseSeconds ?? 3;
  const real = new URL(RABBITMQ_URL);
  const broker = new TcpProxy({ host: real.hostname, port: Number(real.port || 5672) });
  await broker.open();
  const proxied = new URL(RABBITMQ_URL);
  proxied.hostname = '127.0.0.1';
  proxied.port = String(broker.port);
  const base = await prepareRoleStack('fault_stack', proxied.toString(), {
    JOB_LEASE_SECONDS: String(leaseSeconds),
    ...options.extra,
  }).catch(async (error) => {
    await broker.shut();
    throw error;
  });
  const logDir = path.join(base.dataDir, 'logs');
  mkdirSync(logDir, { recursive: true });
  // The child keeps its own copy of the descriptor: ours is closed once the process is spawned.
  const opened: number[] = [];
  const logTo = (name: string): ['ignore', 'ignore', number] => {
    const fd = openSync(path.join(logDir, `${name}.log`), 'a');
    opened.push(fd);
    return ['ignore', 'ignore', fd];
  };
  const closeLogs = () => opened.splice(0).forEach((fd) => closeSync(fd));

  const children: Record<string, ChildProcess> = {};
  const metricsPorts: number[] = [];
  const db = new pg.Pool({ connectionString: base.scratch.url, max: 4 });
  db.on('error', () => undefined);

  /** CPU seconds of the killed processes of each worker slot. */
  const killedCpu: Record<string, number> = {};
  const readySince: (number | null)[] = [];
  const alive = (child: ChildProcess | undefined) => !!child && child.exitCode === null && child.signalCode === null;

  const startWorker = async (i: number) => {
    const started = Date.now();
    const name = `worker${i}`;
    if (alive(children[name])) throw new Error(`${name} is still running`);
    readySince[i] = null;
    metricsPorts[i] ??= await freePort();
    // The worker's own /metrics opens once its consumers are subscribed: that is when it is ready.
    const child = runRole('worker', { ...base.env, METRICS_PORT: String(metricsPorts[i]) }, logTo(name));
    closeLogs();
    children[name] = child;
    try {
      await waitReady(`http://127.0.0.1:${metricsPorts[i]}/metrics`, child);
    } catch (error) {
      const tail = readFileSync(path.join(logDir, `${name}.log`), 'utf8')
        .trim()
        .split('\n')
        .slice(-5)
        .join('\n');
      throw new Error(`${name} did not start: ${error instanceof Error ? error.message : String(error)}\n${tail}`, { cause: error });
    }
    if (children[name] === child && alive(child)) readySince[i] = Date.now();
    return Date.now() - started;
  };

  const close = async () => {
    await Promise.all(Object.values(children).map((child) => stopProcess(child)));
    await db.end().catch(() => undefined);
    await broker.shut();
    const keep = process.env.FAULT_STACK_KEEP_LOGS === '1';
    if (keep) {
      const kept = path.join(os.tmpdir(), `${base.scratch.name}-logs`);
      rmSync(kept, { recursive: true, force: true });
      cpSync(logDir, kept, { recursive: true });
      process.stderr.write(`fault stack: logs kept in ${kept}\n`);
    }
    await removeRoleStack(base);
  };

  try {
    Object.assign(children, await startApiAndGateway(base, logTo));
    closeLogs();
    for (let i = 0; i < workerCount; i++) await startWorker(i);
  } catch (error) {
    await close().catch(() => undefined);
    throw error;
  }

  return {
    gatewayUrl: base.gatewayUrl,
    apiUrl: base.apiUrl,
    queuePrefix: base.scratch.name,
    leaseSeconds,
    db,
    workerCount,
    killWorker: async (i) => {
      const child = children[`worker${i}`];
      readySince[i] = null;
      if (!child || !alive(child)) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      const [cpu] = Object.values(perProcess({ child }, cpuSecondsOf));
      killedCpu[`worker${i}`] = (killedCpu[`worker${i}`] ?? 0) + cpu!;
      child.kill('SIGKILL');
      await gone;
    },
    startWorker,
    killApi: async () => {
      const child = children.api;
      if (!child || !alive(child)) return;
      const gone = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGKILL');
      await gone;
    },
    startApi: async () => {
      if (alive(children.api)) throw new Error('the api is still running');
      const child = runRole('api', base.env, logTo('api'));
      closeLogs();
      children.api = child;
      await waitReady(`${base.apiUrl}/ready`, child);
    },
    workerAlive: (i) => alive(children[`worker${i}`]),
    workerReadySince: (i) => (alive(children[`worker${i}`]) ? (readySince[i] ?? null) : null),
    cutBroker: () => broker.shut(),
    restoreBroker: () => broker.open(),
    cpuSeconds: () =>
      Object.fromEntries(Object.entries(perProcess(children, cpuSecondsOf)).map(([name, s]) => [name, s + (killedCpu[name] ?? 0)])),
    logDir,
    logLines: (text) =>
      Object.keys(children).flatMap((name) =>
        readFileSync(path.join(logDir, `${name}.log`), 'utf8')
          .split('\n')
          .filter((line) => line.includes(text)),
      ),
    close,
  };
}
