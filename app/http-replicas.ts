import { type ChildProcess, fork } from 'node:child_process';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

import type { PlatformConfig } from '../adapters/config/platform-config';
import { serveReplica, type SharedByPrimary } from '../adapters/ipc/ipc-primary';
import type { ConnectionFront, ConnectionTaker } from './connection-front';
import type { Logger } from './logger';

const ROOT = join(__dirname, '..');
const ENTRY = join(ROOT, 'bin', 'http-replica.ts');
/** Loads TypeScript in the replica as `npm start` does in this process. */
const TSX_LOADER = pathToFileURL(join(ROOT, 'node_modules', 'tsx', 'dist', 'loader.mjs')).href;
const RESTART_DELAY_MS = 1000;
const CLOSE_GRACE_MS = 10_000;

/** What the primary tells a replica first. */
export interface ReplicaInit {
  ipc: 'init';
  config: PlatformConfig;
  index: number;
  /** Ports whose adapter lives in the primary (in-process): the replica reaches them over the channel. */
  viaPrimary: { rateLimits: boolean; queue: boolean; bus: boolean };
}

export interface HttpReplicas {
  /** The process ids of the replicas serving now (started and not exited; benchmarks read their CPU time). */
  pids(): number[];
  close(): Promise<void>;
}

/**
 * The `start` role on a database server: `count` more processes, each with its own gateway and api on the
 * shared database, given their turn of the connections `front` accepts. The state that must be one for all (rate-limit
 * counters, the in-process queue and bus) stays in this process and is reached over each replica's IPC
 * channel; workers and timers run here only. A replica that dies is started again.
 */
export async function startHttpReplicas(options: {
  count: number;
  config: PlatformConfig;
  front: ConnectionFront;
  shared: SharedByPrimary;
  log: Logger;
}): Promise<HttpReplicas> {
  const { count, config, front, shared, log } = options;
  const viaPrimary = {
    rateLimits: shared.rateLimits.id === 'in-process',
    queue: shared.queue.id === 'in-process',
    bus: shared.bus.id === 'in-process',
  };
  const running = new Map<number, ChildProcess>();
  const serving = new Set<ChildProcess>();
  let closing = false;

  const start = (index: number): Promise<void> =>
    new Promise((resolve, reject) => {
      const child = fork(ENTRY, [], { execArgv: ['--import', TSX_LOADER] });
      running.set(index, child);
      let stopServing: (() => Promise<void>) | undefined;
      let ready = false;
      const taker: ConnectionTaker = (socket) => {
        if (!child.connected) return false;
        // A replica dying as it is handed a connection loses that one connection, as a crash would.
        child.send({ ipc: 'connection' }, socket, undefined, (e) => e && socket.destroy());
        return true;
      };
      child.on('error', (e) => log('warn', `HTTP replica ${index}: IPC channel error`, e));
      child.on('message', (m: { ipc?: string; error?: string }) => {
        if (m?.ipc === 'ready') {
          ready = true;
          serving.add(child);
          front.add(taker);
          resolve();
        } else if (m?.ipc === 'failed') reject(new Error(`HTTP replica ${index} did not start: ${m.error}`));
      });
      child.once('exit', (code, signal) => {
        front.remove(taker);
        serving.delete(child);
        void stopServing?.();
        if (running.get(index) === child) running.delete(index);
        if (!ready) return reject(new Error(`HTTP replica ${index} exited while starting (${signal ?? code})`));
        if (closing) return;
        log('error', `HTTP replica ${index} exited (${signal ?? code}); starting another`);
        setTimeout(() => {
          if (!closing) start(index).catch((e) => log('error', `HTTP replica ${index} could not be restarted`, e));
        }, RESTART_DELAY_MS).unref();
      });
      serveReplica(child, shared).then(
        (stop) => {
          stopServing = stop;
          const init: ReplicaInit = { ipc: 'init', config, index, viaPrimary };
          child.send(init);
        },
        (e: Error) => {
          child.kill();
          reject(e);
        },
      );
    });

  const close = async () => {
    closing = true;
    await Promise.all(
      [...running.values()].map(
        (child) =>
          new Promise<void>((resolve) => {
            if (child.exitCode !== null || child.signalCode !== null) return resolve();
            const kill = setTimeout(() => child.kill('SIGKILL'), CLOSE_GRACE_MS);
            child.once('exit', () => {
              clearTimeout(kill);
              resolve();
            });
            if (child.connected) child.send({ ipc: 'close' });
            else child.kill();
          }),
      ),
    );
  };

  try {
    await Promise.all(Array.from({ length: count }, (_, i) => start(i + 1)));
  } catch (e) {
    await close();
    throw e;
  }
  return { pids: () => [...serving].map((c) => c.pid!), close };
}
