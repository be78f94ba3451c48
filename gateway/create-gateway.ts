import { randomUUID } from 'node:crypto';
import http, { type IncomingMessage, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { KEY_PREFIX } from '../core/api-keys/api-keys';
import {
  anonymousIdentity,
  BODY_SIGNATURE_TRAILER,
  DIGEST_IN_TRAILER,
  EMPTY_BODY_DIGEST,
  forwardableValues,
  IDENTITY_HEADERS,
  IdentityHeader,
  sha256Hex,
  signBodyTrailer,
  signIdentity,
} from '../core/identity/gateway-signature';
import type { AccessTokenClaims, ForwardedIdentity } from '../core/identity/token-claims';
import type { RateLimitDecision } from '../core/ports/rate-limit-store';
import { isOpenAiCompatiblePath } from '../core/shared/openai-error';
import { clientIp, ipRateLimitKey } from './client-ip';
import { bearerCredential, bearerOrCookieCredential, type Credential } from './credentials';
import { crossSiteRefusal, originOf } from './csrf';
import type { GatewayOptions, RateLimitRule } from './gateway-options';
import { rawErrorResponse, type SendError, sendError, sendOpenAiError } from './http-errors';
import { classifyLane } from './lanes';
import { checkPath } from './path-guard';
import { forwardBodyFor } from './request-body';
import { requestIdOf } from './request-id';
import { HSTS, SECURITY_HEADERS } from './security-headers';
import { drainable } from './server-drain';
import { createUpstreamForwarder, type ForwardBody, HOP_BY_HOP } from './upstream-forwarder';
import { VerifiedTokenCache } from './verified-token-cache';

export interface Gateway {
  server: http.Server;
  listen(port: number, host?: string): Promise<AddressInfo>;
  /**
   * Shutdown begins: `/health` and `/ready` answer 503, every answer from now on carries `Connection: close`, idle
   * keep-alive connections close, event-stream subscriptions end cleanly (server-drain.ts). Idempotent.
   */
  beginClose(): void;
  /** `beginClose()`, lets running exchanges finish for up to `graceMs`, then cuts the rest and stops listening. */
  close(graceMs?: number): Promise<void>;
}

const STRIPPED = new Set<string>([
  ...HOP_BY_HOP,
  ...IDENTITY_HEADERS,
  'forwarded',
  'x-forwarded-for',
  'x-forwarded-host',
  'x-forwarded-proto',
  'x-request-id',
]);
/** Trace context from a client is only continued behind a trusted proxy; the gateway's own span replaces it. */
const TRACE_HEADERS = new Set(['traceparent', 'tracestate']);

const MISSING = 'Missing or invalid authorization header';
const INTERNAL_ONLY = new Set(['/metrics', '/metrics/']);
/** The probes of the gateway (the chart's readiness is /health): answered here with 503 once shutdown has begun. */
const PROBES = new Set(['/health', '/health/', '/ready', '/ready/']);
const FAILED = 'Authentication Failed';
const WWW_AUTH = { 'www-authenticate': 'Bearer' };

type Refusal = { status: number; error: string; message: string; code?: string; headers?: Record<string, string | number> };
type Auth = { identity: ForwardedIdentity; principalKey: string | null; viaCookie: boolean } | Refusal;

/** How long a client is asked to wait before retrying when the database is away (as the api's error mapper). */
const DATABASE_RETRY_AFTER_SECONDS = 2;
const DATABASE_UNAVAILABLE: Refusal = {
  status: 503,
  error: 'Service Unavailable',
  message: 'The database is unavailable; try again shortly',
  code: 'DATABASE_UNAVAILABLE',
  headers: { 'retry-after': DATABASE_RETRY_AFTER_SECONDS },
};

type Limited = RateLimitDecision | 'unavailable';

/** What one exchange's outbound headers are made of. */
interface Exchange {
  req: IncomingMessage;
  ip: string;
  body: ForwardBody;
  requestId: string;
  traceHeaders: Record<string, string>;
  lane: ReturnType<typeof classifyLane>;
}

/** The edge on :4000: checks the path, limits rates, verifies credentials, signs the identity, streams to the backend. */
export function createGateway(options: GatewayOptions): Gateway {
  const { tokenSigner, verifyApiKey, rateLimitStore, limits, internalSecret, clock } = options;
  const trustProxy = options.trustProxy ?? false;
  const report = options.onError ?? (() => undefined);
  const databaseUnavailable = options.isDatabaseUnavailable ?? (() => false);
  const rateLimited = options.onRateLimited ?? (() => undefined);
  if (!internalSecret) throw new Error('Gateway needs an internalSecret');
  const forwarder = createUpstreamForwarder(options.upstream);
  const tokens = new VerifiedTokenCache(tokenSigner, clock, options.tokenCacheSize ?? 5000, options.externalAccessClaims ?? null);
  const bufferLimit = options.bodyBufferLimitBytes ?? 1024 * 1024;
  const allowedOrigins = new Set((options.allowedOrigins ?? []).map((o) => originOf(o)).filter((o): o is string => o !== null));

  async function limit(key: string, rule: RateLimitRule): Promise<Limited> {
    try {
      return await rateLimitStore.hit(key, rule.limit, rule.windowSeconds);
    } catch (err) {
      // The stores fall back to an in-process limiter themselves; anything left is refused, never let through.
      report(err, 'rate-limit-store');
      return 'unavailable';
    }
  }

  /** The store's answer at once when it counts in this process; undefined when it must be awaited (`limit`). */
  function limitNow(key: string, rule: RateLimitRule): Limited | undefined {
    if (!rateLimitStore.hitNow) return undefined;
    try {
      return rateLimitStore.hitNow(key, rule.limit, rule.windowSeconds);
    } catch (err) {
      report(err, 'rate-limit-store');
      return 'unavailable';
    }
  }

  async function userIdentity(token: string, ip: string, viaCookie: boolean): Promise<Auth> {
    let claims;
    try {
      claims = await tokens.verifyAccess(token);
    } catch (err) {
      // only the external issuer's verification throws: its keys or the user store could not be reached
      report(err, 'external-token-verification');
      // The issuer's keys were fetched but the user store (the database) is away.
      if (databaseUnavailable(err)) return DATABASE_UNAVAILABLE;
      return { status: 503, error: 'Service Unavailable', message: 'Access tokens of the external issuer cannot be checked right now' };
    }
    if (!claims) return { status: 401, error: FAILED, message: 'Invalid or expired access token' };
    return claimsIdentity(claims, ip, viaCookie);
  }

  function claimsIdentity(claims: AccessTokenClaims, ip: string, viaCookie: boolean): Auth {
    const org = claims.organizations[0];
    return {
      identity: {
        userId: claims.userId,
        organizationId: org?.id ?? null,
        email: claims.email,
        platformRole: claims.platformRole,
        orgRole: org?.role ?? null,
        apiKeyId: null,
        apiKeyScopes: [],
        clientIp: ip,
        tokenVersion: claims.tokenVersion ?? 0,
      },
      principalKey: `user:${claims.userId}`,
      viaCookie,
    };
  }

  async function keyIdentity(key: string, ip: string): Promise<Auth> {
    let principal;
    try {
      principal = await verifyApiKey(key);
    } catch (err) {
      report(err, 'api-key-verification');
      if (databaseUnavailable(err)) return DATABASE_UNAVAILABLE;
      return { status: 503, error: 'Service Unavailable', message: 'API keys cannot be checked right now' };
    }
    if (!principal) return { status: 401, error: FAILED, message: 'Invalid or revoked API key' };
    return {
      identity: {
        ...anonymousIdentity(ip),
        organizationId: principal.organizationId,
        apiKeyId: principal.keyId,
        apiKeyScopes: principal.scopes,
      },
      principalKey: `key:${principal.keyId}`,
      viaCookie: false,
    };
  }

  /** The caller's identity: at once when nothing needs waiting for (a token verified before), else a promise. */
  function authenticate(lane: ReturnType<typeof classifyLane>, req: IncomingMessage, ip: string): Auth | Promise<Auth> {
    if (lane === 'open') return { identity: anonymousIdentity(ip), principalKey: null, viaCookie: false };
    if (lane === 'api-key') {
      const cred = bearerCredential(req.headers);
      if (cred.kind !== 'token') return { status: 401, error: MISSING, message: 'Send the API key as "Authorization: Bearer <API_KEY>"' };
      return keyIdentity(cred.token, ip);
    }
    const cred: Credential = bearerOrCookieCredential(req.headers);
    if (cred.kind === 'token' && cred.token.startsWith(KEY_PREFIX)) {
      return { status: 401, error: FAILED, message: 'API keys work on the /v1 API only; /api needs an access token from /api/auth/login' };
    }
    if (cred.kind === 'token') {
      const viaCookie = req.headers.authorization === undefined;
      const known = tokens.remembered(cred.token);
      return known ? claimsIdentity(known, ip, viaCookie) : userIdentity(cred.token, ip, viaCookie);
    }
    if (lane === 'public' && cred.kind === 'none') return { identity: anonymousIdentity(ip), principalKey: null, viaCookie: false };
    return {
      status: 401,
      error: MISSING,
      message: 'Send the access token as "Authorization: Bearer <ACCESS_TOKEN>" or the access_token cookie',
    };
  }

  function tooMany(res: ServerResponse, d: Limited, fail: SendError, scope: 'ip' | 'principal'): void {
    rateLimited(d === 'unavailable' ? 'unavailable' : scope);
    if (d === 'unavailable') {
      return fail(res, 503, 'Service Unavailable', 'Rate limits cannot be checked right now', { 'retry-after': 1 });
    }
    fail(res, 429, 'rate limited', `Too many requests; retry after ${d.retryAfterSeconds} seconds`, {
      'retry-after': d.retryAfterSeconds,
      'ratelimit-limit': d.limit,
      'ratelimit-remaining': 0,
      'ratelimit-reset': d.retryAfterSeconds,
    });
  }

  async function handle(req: IncomingMessage, res: ServerResponse, traceHeaders: Record<string, string>): Promise<void> {
    const method = req.method ?? 'GET';
    const url = req.url ?? '/';
    const tls = isTls(req, trustProxy);
    if (tls) res.setHeader(HSTS[0], HSTS[1]);
    const requestId = requestIdOf(req, trustProxy);
    res.setHeader('x-request-id', requestId);
    const path = checkPath(url);
    if (!path.ok) return sendError(res, 400, 'Bad Request', path.message);
    const fail = isOpenAiCompatiblePath(path.canonicalPath) ? sendOpenAiError : sendError;
    // Operator endpoints of the api stay inside the deployment (scraped and probed on the api's own port).
    if (INTERNAL_ONLY.has(path.canonicalPath)) return fail(res, 404, 'Not Found', 'Not found');
    if (drain.draining && PROBES.has(path.canonicalPath)) {
      return fail(res, 503, 'Service Unavailable', 'The gateway is shutting down', { 'retry-after': 1 });
    }

    // Each step below answers at once when it can (a local rate-limit store, a token verified before, no body):
    // with AsyncLocalStorage on, every promise pays its hooks, and this path runs on every request.
    const ip = clientIp(req, trustProxy);
    const ipKey = ipRateLimitKey(ip);
    let decision = limitNow(ipKey, limits.perIp) ?? (await limit(ipKey, limits.perIp));
    if (decision === 'unavailable' || !decision.allowed) return tooMany(res, decision, fail, 'ip');

    const lane = classifyLane(method, path.canonicalPath);
    const authenticating = authenticate(lane, req, ip);
    let auth = authenticating instanceof Promise ? await authenticating : authenticating;
    if ('status' in auth) return fail(res, auth.status, auth.error, auth.message, auth.status === 401 ? WWW_AUTH : auth.headers, auth.code);
    if (auth.viaCookie) {
      const host = firstValue((trustProxy && req.headers['x-forwarded-host']) || req.headers.host);
      const refusal = crossSiteRefusal(method, req.headers, host ? originOf(`${tls ? 'https' : 'http'}://${host}`) : null, allowedOrigins);
      // A widget on another site still works for visitors: there the cookie is simply not an identity.
      if (refusal && lane === 'public') auth = { identity: anonymousIdentity(ip), principalKey: null, viaCookie: false };
      else if (refusal) return fail(res, 403, 'Forbidden', refusal);
    }

    if (auth.principalKey) {
      const d = limitNow(auth.principalKey, limits.perPrincipal) ?? (await limit(auth.principalKey, limits.perPrincipal));
      if (d === 'unavailable' || !d.allowed) return tooMany(res, d, fail, 'principal');
      if (d.remaining < decision.remaining) decision = d;
    }

    const reading = forwardBodyFor(req, bufferLimit, (digest) => ({
      [BODY_SIGNATURE_TRAILER]: signBodyTrailer(internalSecret, signature, digest),
    }));
    const body = reading instanceof Promise ? await reading : reading;
    if (!body || res.destroyed || req.socket.destroyed) return; // the client left meanwhile
    const bodyDigest = digestOf(body);
    let signature = '';
    try {
      // Refuse values that cannot travel as headers before anything is sent; signing itself (an HMAC and a
      // random nonce) waits until the loopback path asks for headers: the in-process path never does.
      forwardableValues(auth.identity);
    } catch {
      return fail(res, 400, 'Bad Request', 'The identity cannot be forwarded');
    }
    const limitHeaders: [string, string][] = [
      ['ratelimit-limit', String(decision.limit)],
      ['ratelimit-remaining', String(decision.remaining)],
    ];
    const identity = auth.identity;
    const exchange: Exchange = { req, ip, body, requestId, traceHeaders, lane };
    // Methods rather than arrows bound to names: under tsx, esbuild's keepNames names each such closure with a
    // defineProperty, on every request.
    forwarder.forward(req, res, {
      method,
      path: url,
      headers() {
        const signed = signIdentity(internalSecret, identity, {
          method,
          url,
          bodyDigest,
          nowMs: clock.now().getTime(),
          // 122 random bits from node's buffered entropy: randomBytes(16) cost ~6 µs a call, randomUUID 0.4
          nonce: randomUUID().replaceAll('-', ''),
        });
        signature = signed[IdentityHeader.signature]!;
        return outbound(exchange, signed);
      },
      unsignedHeaders() {
        return outbound(exchange, {});
      },
      identity,
      body,
      responseHeaders: [...limitHeaders, ...SECURITY_HEADERS],
      onUnreachable(err) {
        report(err, 'upstream');
        fail(res, 502, 'Bad Gateway', 'The backend service is unreachable');
      },
    });
  }

  /** The headers an exchange goes to the backend with: the client's, less what only the edge may say, plus `signed`. */
  function outbound(x: Exchange, signed: Record<string, string>): OutgoingHttpHeaders {
    const inbound = x.req.headers;
    const connectionTokens = inbound.connection
      ?.toLowerCase()
      .split(',')
      .map((t) => t.trim());
    const out: OutgoingHttpHeaders = {};
    for (const name in inbound) {
      if (STRIPPED.has(name) || connectionTokens?.includes(name)) continue;
      if (!trustProxy && TRACE_HEADERS.has(name)) continue;
      if (x.lane === 'api-key' && name === 'authorization') continue; // the raw key stays at the edge
      out[name] = inbound[name];
    }
    if (x.body.kind === 'buffer') out['content-length'] = String(x.body.data.length);
    if (x.body.kind === 'stream') {
      // Chunked, so that the signed digest of the body can follow it as a trailer.
      delete out['content-length'];
      out['transfer-encoding'] = 'chunked';
      out.trailer = BODY_SIGNATURE_TRAILER;
    }
    out['x-forwarded-for'] = x.ip;
    out['x-forwarded-proto'] = (trustProxy && firstValue(inbound['x-forwarded-proto'])) || 'http';
    const host = (trustProxy && firstValue(inbound['x-forwarded-host'])) || inbound.host;
    if (host) out['x-forwarded-host'] = host;
    Object.assign(out, signed);
    out['x-request-id'] = x.requestId;
    return Object.assign(out, x.traceHeaders);
  }

  const run = (req: IncomingMessage, res: ServerResponse, traceHeaders: Record<string, string>) =>
    void handle(req, res, traceHeaders).catch((err: unknown) => {
      report(err, 'handler');
      sendError(res, 500, 'Internal Server Error', 'Unexpected gateway error');
    });
  const tracing = options.tracing;
  const server = http.createServer(options.upstream.inProcess?.messageClasses ?? {}, (req, res) => {
    if (tracing) tracing.inGatewaySpan(req, res, trustProxy, (headers) => run(req, res, headers));
    else run(req, res, {});
  });
  const drain = drainable(server, {
    // A stream relayed from the backend is unpiped before it ends; one the in-process api writes ends as it is.
    endStream: (res) => void (forwarder.endRelayed(res) || res.end()),
  });
  server.on('clientError', (err: NodeJS.ErrnoException, socket: Socket) => {
    if (err.code === 'ECONNRESET' || !socket.writable) return void socket.destroy();
    const status = err.code === 'HPE_HEADER_OVERFLOW' ? 431 : 400;
    const error = status === 431 ? 'Request Header Fields Too Large' : 'Bad Request';
    // Written raw (no response object on this path), with the security headers of every other gateway error.
    const tls = (socket as { encrypted?: boolean }).encrypted === true;
    socket.end(rawErrorResponse(status, error, 'Malformed HTTP request', tls));
  });

  return {
    server,
    listen: (port, host) =>
      new Promise((resolve, reject) => {
        server.once('error', reject);
        server.listen(port, host, () => {
          server.off('error', reject);
          resolve(server.address() as AddressInfo);
        });
      }),
    beginClose: () => drain.begin(),
    close: async (graceMs = 5000) => {
      await drain.close(Date.now() + graceMs);
      forwarder.close();
    },
  };
}

function digestOf(body: ForwardBody): string {
  if (body.kind === 'buffer') return sha256Hex(body.data);
  return body.kind === 'stream' ? DIGEST_IN_TRAILER : EMPTY_BODY_DIGEST;
}

function isTls(req: IncomingMessage, trustProxy: boolean): boolean {
  if ((req.socket as { encrypted?: boolean }).encrypted === true) return true;
  return trustProxy && firstValue(req.headers['x-forwarded-proto']) === 'https';
}

function firstValue(v: string | string[] | undefined | false): string | undefined {
  if (!v) return undefined;
  const s = Array.isArray(v) ? v[0] : v;
  return s?.split(',')[0]?.trim() || undefined;
}
