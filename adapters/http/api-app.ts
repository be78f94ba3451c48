import express, { type NextFunction, type Request, type Response } from 'express';
import { Registry } from 'prom-client';

import type { Operation } from '../../contracts/operation';
import type { Actor } from '../../core/identity/actor';
import type { IdentityHandoff } from '../../core/identity/identity-handoff';
import type { ForwardedIdentity } from '../../core/identity/token-claims';
import type { Clock } from '../../core/ports/clock';
import type { IdempotencyStore } from '../../core/ports/idempotency-store';
import type { NonceRegistry } from '../../core/ports/nonce-registry';
import { isOpenAiCompatiblePath, toOpenAiError } from '../../core/shared/openai-error';
import { consoleStatic } from './console-static';
import { type AgentOriginPolicy, corsForPublicLanes } from './cors';
import { toHttpError } from './error-mapper';
import type { HandlerMap } from './handler';
import { idempotentPosts } from './idempotency';
import { createHttpMetrics } from './metrics';
import { exactGets, expressMessageClasses, middlewareChain, servePipeline } from './middleware-chain';
import { mountOperations } from './mount-operations';
import { readinessOf } from './readiness';
import { requestLog } from './request-log';
import { securityHeaders } from './security-headers';
import { signedRequests } from './signed-request';
import { unmatchedRoute } from './unmatched-route';
import { widgetAsset } from './widget-asset';

export interface ApiAppOptions {
  operations: Operation[];
  handlers: HandlerMap;
  internalSecret: string;
  clock: Clock;
  resolveActor(identity: ForwardedIdentity): Promise<Actor | null>;
  log?: (level: 'error' | 'warn' | 'info', message: string, extra?: unknown) => void;
  /** Whether the per-request `info` line would be written at all (default true); false skips timing and building it. */
  logRequests?: boolean;
  /** Each gateway signature is accepted once (shared through Redis when configured). */
  nonces: NonceRegistry;
  /** Largest JSON body in bytes (default 25 MiB). */
  jsonLimitBytes?: number;
  /** Largest body of any kind, uploads included (default 64 MiB). */
  maxBodyBytes?: number;
  /** Deepest JSON nesting accepted (default 64). */
  jsonMaxDepth?: number;
  /** Origins allowed to call the public lane and /v1 from a browser (default any). */
  corsOrigins?: string[];
  /** Per-agent origins of the public chat lane (widget channels' allowedOrigins); unrestricted when absent. */
  agentOrigins?: AgentOriginPolicy;
  /** Dependencies `/ready` checks (each resolves when reachable). */
  readiness?: Record<string, () => Promise<unknown>>;
  /** Oldest gateway signature accepted in ms (default 10 s). */
  signatureMaxAgeMs?: number;
  /** Identities handed over by a gateway in this process (the `start` role). */
  handoff?: IdentityHandoff;
  /** Directory of the built chat widget served at /widget.js (default dist/widget). */
  widgetDir?: string;
  /** The built operator console served under /console (default dist/console). */
  consoleDir?: string;
  /** More Prometheus series served at /metrics beside the app's own (queue, jobs, ingestion, tokens, rate limits). */
  metricsRegistries?: Registry[];
  /** Express middleware opening the api's span of a request (OpenTelemetry, when tracing is configured). */
  traceRequest?: (req: Request, res: Response, next: NextFunction) => void;
  /** Where `Idempotency-Key` claims and answers are kept (every POST of /api and /v1); off when absent. */
  idempotency?: IdempotencyStore;
}

// Probes and the scrape come from the orchestrator, not through the gateway (which does not forward /metrics or /ready).
const UNSIGNED_PATHS = new Set(['/health', '/ready', '/metrics']);
/** What the console's router mounted at /console takes (express matches a mount path ignoring case). */
const CONSOLE_PATH = /^\/console(?:\/|$)/i;

/**
 * The backend HTTP adapter. It trusts identity only from a valid gateway signature, so a backend reached
 * directly cannot be spoofed: every other request gets 401.
 */
export function createApiApp(options: ApiAppOptions) {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.set('query parser', 'simple');
  const metrics = createHttpMetrics();
  const scraped = Registry.merge([metrics.registry, ...(options.metricsRegistries ?? [])]);
  const probes = exactGets({
    '/health': (_req, res) => {
      res.json({ status: 'ok' });
    },
    '/ready': (_req, res, next) => {
      readinessOf(options.readiness ?? {})
        .then(({ ready, checks }) => void res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not_ready', checks }))
        .catch(next);
    },
    '/metrics': (_req, res, next) => {
      scraped
        .metrics()
        .then((text) => void res.type(scraped.contentType).send(text))
        .catch(next);
    },
  });
  const signed = signedRequests({
    internalSecret: options.internalSecret,
    clock: options.clock,
    nonces: options.nonces,
    maxAgeMs: options.signatureMaxAgeMs ?? 10_000,
    maxJsonBytes: options.jsonLimitBytes ?? 25 * 1024 * 1024,
    maxBodyBytes: options.maxBodyBytes ?? 64 * 1024 * 1024,
    jsonMaxDepth: options.jsonMaxDepth ?? 64,
    handoff: options.handoff,
    log: options.log,
  });
  const operatorConsole = consoleStatic(options.consoleDir);
  const operations = mountOperations(options.operations, options.handlers, {
    identityOf: (req) => req.res?.locals.identity as ForwardedIdentity,
    resolveActor: options.resolveActor,
  });
  const security = securityHeaders({ strictTransportSecurity: false });
  servePipeline(app, {
    front: middlewareChain(
      // Security headers on every answer, errors included; HSTS is the gateway's (it knows whether TLS was used).
      security,
      requestLog(options.logRequests === false ? undefined : options.log),
      ...(options.traceRequest ? [options.traceRequest] : []),
      metrics.observe,
      probes,
      (req, res, next) => (UNSIGNED_PATHS.has(req.path) ? next() : signed(req, res, next)),
      corsForPublicLanes(options.corsOrigins ?? ['*'], options.agentOrigins),
      exactGets({ '/widget.js': widgetAsset(options.widgetDir) }),
      (req, res, next) => (CONSOLE_PATH.test(req.path) ? operatorConsole(req, res, next) : next()),
      ...(options.idempotency ? [idempotentPosts({ store: options.idempotency, clock: options.clock, log: options.log })] : []),
      operations,
    ),
    fallthrough: unmatchedRoute(options.operations),
    onError: (err: unknown, req: Request, res: Response) => {
      const { status, body, retryAfterSeconds } = toHttpError(err);
      const retryAfter = (body.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
      if (status === 429 && typeof retryAfter === 'number' && !res.headersSent) res.setHeader('Retry-After', String(retryAfter));
      // The database away or busy (503 DATABASE_UNAVAILABLE / DATABASE_BUSY): when to try again.
      if (retryAfterSeconds !== undefined && !res.headersSent) res.setHeader('Retry-After', String(retryAfterSeconds));
      if (status >= 500) options.log?.('error', `${req.method} ${req.path} failed`, err);
      if (res.headersSent) {
        res.end();
        return;
      }
      res.status(status).json(isOpenAiCompatiblePath(req.path) ? toOpenAiError(status, body) : body);
    },
  });
  return Object.assign(app, {
    operationRoutes: operations.routes,
    messageClasses: expressMessageClasses(app),
    /** Headers every answer carries whatever happens (a gateway in this process need not set them first). */
    headersOnEveryAnswer: new Set(security.names),
  });
}
