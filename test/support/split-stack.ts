/**
 * The platform as the production stack runs it, on this machine's real services: `migrate`, then `api`, `worker`
 * and `gateway` as three processes (bin/platform.ts) on a scratch database of the local Postgres server (pgvector
 * built by bin/install-pgvector.sh), RabbitMQ with a queue prefix of its own, and Redis for nonces and rate limits.
 * For the split-roles end-to-end suite, and benchmarks that ask what a request path costs when the background work
 * is not on its event loop. The pieces are in ./role-processes (the fault stack uses them too).
 */
import type { ChildProcess } from 'node:child_process';
import os from 'node:os';

import {
  cpuSecondsOf,
  perProcess,
  prepareRoleStack,
  RABBITMQ_URL,
  removeRoleStack,
  rssMbOf,
  runRole,
  startApiAndGateway,
  stopProcess,
} from './role-processes';

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

/**
 * @param workerNice niceness of the worker process (0-19): on a machine whose cores the api shares with the
 *   worker, a niced worker leaves the api the CPU whenever a request needs it (the README's deployment advice).
 */
export async function startSplitStack(extra: Record<string, string> = {}, workerNice = 0): Promise<SplitStack> {
  const base = await prepareRoleStack('split_stack', RABBITMQ_URL, extra);
  const children: Record<string, ChildProcess> = { worker: runRole('worker', base.env) };
  if (workerNice && children.worker.pid) os.setPriority(children.worker.pid, workerNice);
  Object.assign(children, await startApiAndGateway(base));
  return {
    gatewayUrl: base.gatewayUrl,
    apiUrl: base.apiUrl,
    queuePrefix: base.scratch.name,
    rssMb: () => perProcess(children, rssMbOf),
    cpuSeconds: () => perProcess(children, cpuSecondsOf),
    close: async () => {
      await Promise.all(Object.values(children).map((child) => stopProcess(child)));
      await removeRoleStack(base);
    },
  };
}
