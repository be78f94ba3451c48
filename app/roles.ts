import http, { type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import type { Container } from 'inversify';

import type { PlatformConfig } from '../adapters/config/platform-config';
import { createApiApp } from '../adapters/http/api-app';
import { startMetricsServer } from '../adapters/http/metrics-server';
import { notShuttingDown } from '../adapters/http/readiness';
import { databaseOptions, openDatabase } from '../adapters/postgres/database';
import { isDatabaseUnavailable } from '../adapters/postgres/database-errors';
import { relationalMigrations } from '../adapters/postgres/migrations';
import { migrate } from '../adapters/postgres/migrator';
import { allOperations } from '../contracts';
import { verifyApiKey } from '../core/api-keys/api-keys';
import { externalAccessClaims } from '../core/identity/external-token';
import type { IdentityHandoff } from '../core/identity/identity-handoff';
import { resolveActor } from '../core/identity/resolve-actor';
import { ensureCatalogue } from '../core/models/catalogue';
import type { RateLimitStore } from '../core/ports/rate-limit-store';
import { normalizeOrigin, publicLaneOrigins } from '../core/public-chat/widget-settings';
import { createGateway, drainable, type Gateway, type Upstream } from '../gateway';
import { INFRASTRUCTURE, SERVICES } from './container';
import { buildHandlers } from './http-routes';
import type { Infrastructure } from './infrastructure';
import type { Logger } from './logger';
import type { Services } from './services';
import { startWorkers } from './workers';

export interface Running {
  /**
   * Stops. A server lets its in-flight requests and streams run until `deadline` (ms since the epoch; default
   * CLOSE_GRACE_MS from now; the signal handler passes now + SHUTDOWN_GRACE_MS), answering with `Connection: close`.
   */
  close(deadline?: number): Promise<void>;
}

/** A server of this process: shutdown can begin (readiness 503, `Connection: close`) before it is closed. */
export interface RunningServer extends Running {
  beginClose(): void;
}

/** The grace of a `close()` given no deadline (tests, benchmarks, an HTTP replica told to stop). */
const CLOSE_GRACE_MS = 2000;

/** `shuttingDown` makes `/ready` fail (503) once it is true. */
export function createApi(container: Container, handoff?: IdentityHandoff, shuttingDown: () => boolean = () => false) {
  const infra = container.get<Infrastructure>(INFRASTRUCTURE);
  const services = container.get<Services>(SERVICES);
  return createApiApp({
    operations: allOperations(infra.plugins.catalogue()),
    handlers: buildHandlers(infra, services),
    internalSecret: infra.config.secrets.internal,
    clock: infra.clock,
    resolveActor: (identity) => resolveActor(infra.store, identity),
    log: infra.log,
    // Below info (LOG_LEVEL=warn) the request line would be dropped: no per-request listener builds it.
    logRequests: infra.config.logLevel === 'debug' || infra.config.logLevel === 'info',
    nonces: infra.nonces,
    idempotency: infra.idempotency,
    jsonMaxDepth: infra.config.security.jsonMaxDepth,
    corsOrigins: infra.config.security.corsOrigins,
    agentOrigins: {
      originsFor: (slug) => publicLaneOrigins(infra.store.repos, slug),
      ownOrigin: () => normalizeOrigin(infra.config.publicUrl),
    },
    // Any query proves the database answers; the nil id never exists.
    readiness: {
      database: () => infra.store.repos.organizations.findById('00000000-0000-0000-0000-000000000000'),
      serving: notShuttingDown(shuttingDown),
    },
    signatureMaxAgeMs: infra.config.security.signatureMaxAgeMs,
    maxBodyBytes: infra.config.uploads.maxBytes + 1024 * 1024,
    handoff,
    metricsRegistries: [infra.metrics.registry],
    ...(infra.tracing ? { traceRequest: infra.tracing.apiMiddleware } : {}),
  });
}

export async function startApi(
  container: Container,
  port: number,
  host: string,
  handoff?: IdentityHandoff,
): Promise<{ server: Server; address: AddressInfo; listener: ReturnType<typeof createApi> } & RunningServer> {
  await ensureCatalogue(container.get<Services>(SERVICES).catalogue);
  let drain: ReturnType<typeof drainable> | undefined;
  const app = createApi(container, handoff, () => drain?.draining ?? false);
  const server = await new Promise<Server>((resolve, reject) => {
    const s = http.createServer(app.messageClasses, app);
    // Graceful shutdown (docs/contracts.md "Delivery guarantees"): in-flight requests finish, answers say Connection: close.
    drain = drainable(s);
    s.listen(port, host, () => resolve(s));
    s.once('error', reject);
  });
  server.keepAliveTimeout = 65_000;
  const draining = drain!;
  return {
    server,
    address: server.address() as AddressInfo,
    listener: app,
    beginClose: () => draining.begin(),
    close: (deadline = Date.now() + CLOSE_GRACE_MS) => draining.close(deadline),
  };
}

/**
 * The api of this process as the gateway's upstream: a request the gateway has read whole is handed to the
 * api's listener in memory, on request and response objects already of the api's kind, without the headers
 * the api sets on every answer anyway; a streamed body still crosses loopback to the api's port.
 */
export function inProcessUpstream(
  api: { address: AddressInfo; listener: ReturnType<typeof createApi> },
  identities: IdentityHandoff,
): Upstream {
  const { listener } = api;
  return {
    host: '127.0.0.1',
    port: api.address.port,
    inProcess: { listener, identities, messageClasses: listener.messageClasses, headersOnEveryAnswer: listener.headersOnEveryAnswer },
  };
}

export async function startGateway(
  container: Container,
  upstream: Upstream,
  port: number,
  host: string,
  /** The store of the per-request limits when it is not the infrastructure's (an HTTP replica's). */
  rateLimits?: RateLimitStore,
): Promise<{ gateway: Gateway; address: AddressInfo } & RunningServer> {
  const infra = container.get<Infrastructure>(INFRASTRUCTURE);
  const services = container.get<Services>(SERVICES);
  const { externalTokens } = infra;
  const gateway = createGateway({
    upstream,
    tokenSigner: infra.tokens,
    verifyApiKey: (raw) => verifyApiKey(services.apiKeys, raw),
    rateLimitStore: rateLimits ?? infra.rateLimits,
    limits: infra.config.gateway.limits,
    trustProxy: infra.config.gateway.trustProxy,
    allowedOrigins: infra.config.security.allowedOrigins,
    bodyBufferLimitBytes: infra.config.security.gatewayBodyBufferBytes,
    internalSecret: infra.config.secrets.internal,
    clock: infra.clock,
    externalAccessClaims: externalTokens && ((token) => externalAccessClaims(infra.store.repos, externalTokens, token, infra.clock.now())),
    isDatabaseUnavailable,
    onError: (err, context) => infra.log('warn', `gateway: ${context}`, err),
    onRateLimited: (scope) => infra.metrics.rateLimited(scope),
    ...(infra.tracing ? { tracing: infra.tracing } : {}),
  });
  const address = await gateway.listen(port, host);
  // The gateway role's own /metrics (its rate-limit refusals); in `start` the api serves them.
  const metrics =
    infra.config.role === 'gateway' && infra.config.metricsPort
      ? await startMetricsServer([infra.metrics.registry], infra.config.metricsPort, '0.0.0.0')
      : null;
  return {
    gateway,
    address,
    beginClose: () => gateway.beginClose(),
    close: async (deadline = Date.now() + CLOSE_GRACE_MS) => {
      gateway.beginClose();
      await metrics?.close();
      await gateway.close(Math.max(0, deadline - Date.now()));
    },
  };
}

/** The `migrate` role: applies the relational migrations and closes the database. */
export async function migrateDatabase(config: PlatformConfig, log: Logger): Promise<void> {
  const db = await openDatabase(databaseOptions(config));
  try {
    const applied = await migrate(db.knex, [relationalMigrations]);
    log('info', applied.length ? `applied ${applied.join(', ')}` : 'database is up to date');
  } finally {
    await db.close();
  }
}

export { startWorkers };
/** A second opener of the embedded data folder (bin/platform.ts reports it without a stack). */
export { DataFolderInUseError } from '../adapters/postgres/embedded/data-folder-claim';
