import type { AddressInfo } from 'node:net';

import type { Container } from 'inversify';

import type { PlatformConfig } from '../adapters/config/platform-config';
import { createIdentityHandoff } from '../core/identity/identity-handoff';
import { acceptInto, type ConnectionFront, openConnectionFront } from './connection-front';
import { createContainer } from './container';
import { startEmailListener } from './email-listener';
import { type HttpReplicas, startHttpReplicas } from './http-replicas';
import { buildInfrastructure, type Infrastructure, type InfrastructureOverrides } from './infrastructure';
import { createLogger } from './logger';
import { inProcessUpstream, startApi, startGateway, startWorkers } from './roles';

export interface RunningPlatform {
  /** Where clients reach the platform (the real port when PORT was 0). */
  gatewayUrl: string;
  /** The backend on loopback; it refuses every request that does not come through the gateway. */
  apiUrl: string;
  /** The composition root of this process (tests reach the store and the configuration through it). */
  container: Container;
  infrastructure: Infrastructure;
  /** The inbound SMTP listener's address when EMAIL_SMTP_PORT is set. */
  smtpAddress: AddressInfo | null;
  /** The process ids of the HTTP replicas serving now (HTTP_PROCESSES above 1 on a database server). */
  replicaPids(): number[];
  /**
   * Stops (docs/contracts.md "Delivery guarantees"): readiness fails and answers carry `Connection: close` at once, in-flight
   * requests and streams run until `deadline` (ms since the epoch; default 2 s from now), then the rest is cut.
   */
  close(deadline?: number): Promise<void>;
}

/** A URL derived from PORT=0 names no reachable port; it gets the port the gateway was given. */
function withBoundPort(url: string, port: number): string {
  const u = new URL(url);
  if (u.port !== '0') return url;
  u.port = String(port);
  return u.toString().replace(/\/$/, '');
}

/**
 * The `start` role: gateway, api and worker in one process; the api listens on loopback only. With
 * HTTP_PROCESSES above 1 (a database server) HTTP replicas serve beside it; they build their adapters from
 * `config`, so `overrides` (tests, benchmarks) reach this process only.
 */
export async function startPlatform(config: PlatformConfig, overrides: InfrastructureOverrides = {}): Promise<RunningPlatform> {
  // Our own copy: the public and app URLs are completed below once the gateway port is known.
  const settings: PlatformConfig = { ...config };
  const log = createLogger(settings.logLevel, overrides.logDestination);
  const infra = await buildInfrastructure(settings, log, overrides);
  const container = createContainer(infra);
  const started: { close(): Promise<void> }[] = [];
  let api: Awaited<ReturnType<typeof startApi>>;
  let gateway: Awaited<ReturnType<typeof startGateway>>;
  let workers: Awaited<ReturnType<typeof startWorkers>>;
  let smtp: Awaited<ReturnType<typeof startEmailListener>> = null;
  let replicas: HttpReplicas | null = null;
  let front: ConnectionFront | null = null;
  let publicAddress: AddressInfo;
  try {
    const identities = createIdentityHandoff();
    api = await startApi(container, settings.role === 'start' ? 0 : settings.api.port, '127.0.0.1', identities);
    started.unshift(api);
    // Same process: body-less requests skip the loopback hop; the api still listens for the others.
    const upstream = inProcessUpstream(api, identities);
    const multiProcess = settings.httpProcesses > 1;
    // With replicas the public port is the front's, which hands connections to this gateway and theirs.
    gateway = await startGateway(
      container,
      upstream,
      multiProcess ? 0 : settings.gateway.port,
      multiProcess ? '127.0.0.1' : settings.gateway.host,
    );
    started.unshift(gateway);
    const httpServer = gateway.gateway.server;
    front = multiProcess
      ? await openConnectionFront(settings.gateway.port, settings.gateway.host, (socket) => acceptInto(httpServer, socket))
      : null;
    if (front) started.unshift(front);
    publicAddress = front?.address ?? gateway.address;
    settings.publicUrl = withBoundPort(settings.publicUrl, publicAddress.port);
    settings.appUrl = withBoundPort(settings.appUrl, publicAddress.port);
    workers = await startWorkers(container);
    started.unshift(workers);
    smtp = await startEmailListener(container);
    if (front) {
      const { rateLimits, queue, bus } = infra;
      replicas = await startHttpReplicas({
        count: settings.httpProcesses - 1,
        config: settings,
        front,
        shared: { rateLimits, queue, bus },
        log,
      });
    }
  } catch (e) {
    await smtp?.close().catch(() => undefined);
    // A port in use or a failing consumer must not leave the store and the other listeners open.
    for (const s of started) await s.close().catch(() => undefined);
    await infra.close();
    throw e;
  }
  const host = publicAddress.address.includes(':') ? `[${publicAddress.address}]` : publicAddress.address;
  return {
    gatewayUrl: `http://${host}:${publicAddress.port}`,
    apiUrl: `http://127.0.0.1:${api.address.port}`,
    container,
    infrastructure: infra,
    smtpAddress: smtp?.address ?? null,
    replicaPids: () => replicas?.pids() ?? [],
    close: async (deadline?: number) => {
      // Readiness fails and every answer says Connection: close from now on, on both servers.
      gateway.beginClose();
      api.beginClose();
      // No new connections, then the replicas finish theirs.
      await front?.close();
      await replicas?.close();
      await smtp?.close();
      // The gateway first: a streamed body it forwards still reaches the api over loopback until it is done.
      await gateway.close(deadline);
      await api.close(deadline);
      await workers.close();
      await infra.close();
    },
  };
}
