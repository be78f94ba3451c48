import type { Socket } from 'node:net';

import { IpcEventBus } from '../adapters/ipc/ipc.event-bus';
import { IpcJobQueue } from '../adapters/ipc/ipc.job-queue';
import { IpcRateLimitStore } from '../adapters/ipc/ipc.rate-limit-store';
import { IpcClient } from '../adapters/ipc/ipc-rpc';
import { SyncedRateLimitStore } from '../adapters/ipc/synced.rate-limit-store';
import { createIdentityHandoff } from '../core/identity/identity-handoff';
import { EVENT_BUS } from '../core/ports/event-bus';
import { JOB_QUEUE } from '../core/ports/job-queue';
import { RATE_LIMIT_STORE } from '../core/ports/rate-limit-store';
import type { Binding } from './adapters-container';
import { acceptInto } from './connection-front';
import { createContainer } from './container';
import type { ReplicaInit } from './http-replicas';
import { buildInfrastructure } from './infrastructure';
import { createLogger } from './logger';
import { inProcessUpstream, startApi, startGateway } from './roles';

/**
 * One HTTP replica of the `start` role (forked by startHttpReplicas): a gateway for the connections the
 * primary hands over and an api behind it in this process, on the shared database; no workers. It stops when the primary
 * says so or goes away.
 */
export async function runHttpReplica(): Promise<void> {
  const init = await new Promise<ReplicaInit>((resolve) => {
    const onInit = (m: unknown) => {
      if ((m as ReplicaInit)?.ipc !== 'init') return;
      process.off('message', onInit);
      resolve(m as ReplicaInit);
    };
    process.on('message', onInit);
  });
  const { config, index, viaPrimary } = init;
  const log = createLogger(config.logLevel);
  const primary = new IpcClient(process);
  const logger = { warn: (message: string, extra?: unknown) => log('warn', message, extra) };
  const bindings: Binding[] = [];
  if (viaPrimary.rateLimits) bindings.push([RATE_LIMIT_STORE, new IpcRateLimitStore(primary)]);
  if (viaPrimary.queue) bindings.push([JOB_QUEUE, new IpcJobQueue(primary)]);
  if (viaPrimary.bus) bindings.push([EVENT_BUS, new IpcEventBus(primary, process, logger)]);
  // The analytics journal folder is shared: each process writes its own segments and replays only dead ones'.
  const infra = await buildInfrastructure(config, log, { bindings });
  const closers: (() => Promise<void>)[] = [() => infra.close()];
  let closing: Promise<void> | undefined;
  const close = () =>
    (closing ??= (async () => {
      primary.close();
      for (const c of closers) await c().catch((e) => log('warn', `HTTP replica ${index}: error while closing`, e));
      process.exit(0);
    })());
  process.on('disconnect', () => void close());
  process.on('message', (m: { ipc?: string }) => m?.ipc === 'close' && void close());
  // Ctrl-C reaches the whole process group: the primary decides when this replica stops.
  process.on('SIGINT', () => undefined);
  try {
    const container = createContainer(infra);
    const identities = createIdentityHandoff();
    const api = await startApi(container, 0, '127.0.0.1', identities);
    closers.unshift(() => api.close());
    const upstream = inProcessUpstream(api, identities);
    // Its own port on loopback is not published: clients' connections come from the primary (connection-front).
    // The per-request limits are reported to the primary in batches; the api's own (sign-in failures) are exact.
    const perRequest = viaPrimary.rateLimits ? new SyncedRateLimitStore(primary) : undefined;
    const gateway = await startGateway(container, upstream, 0, '127.0.0.1', perRequest);
    closers.unshift(async () => {
      await gateway.close();
      await perRequest?.close();
    });
    process.on('message', (m: { ipc?: string }, socket?: Socket) => {
      if (m?.ipc === 'connection' && socket) acceptInto(gateway.gateway.server, socket);
    });
    process.send?.({ ipc: 'ready' });
  } catch (e) {
    process.send?.({ ipc: 'failed', error: e instanceof Error ? e.message : String(e) });
    await close();
  }
}
