import { createHash } from 'node:crypto';
import http, {
  type IncomingHttpHeaders,
  type IncomingMessage,
  type OutgoingHttpHeaders,
  type ServerOptions,
  type ServerResponse,
} from 'node:http';

import type { IdentityHandoff } from '../core/identity/identity-handoff';
import type { ForwardedIdentity } from '../core/identity/token-claims';

export type Upstream = ({ host: string; port: number } | { socketPath: string }) & {
  /**
   * The backend when it runs in this process (the `start` role): a request without a body or with one the
   * gateway has read is handed to its listener directly instead of crossing loopback, its identity (and that
   * body) passed in memory instead of signed headers; a streamed body keeps the loopback path.
   */
  inProcess?: {
    listener: (req: IncomingMessage, res: ServerResponse) => void;
    identities: IdentityHandoff;
    /** The constructors of the requests and responses the listener expects; the gateway's server makes its own with them. */
    messageClasses?: Pick<ServerOptions, 'IncomingMessage' | 'ServerResponse'>;
    /** Headers (lower-case) the listener sets on every answer: the gateway does not set them first only to be overwritten. */
    headersOnEveryAnswer?: ReadonlySet<string>;
  };
};

/** Hop-by-hop headers (RFC 9110 7.6.1) never cross the proxy. */
export const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'proxy-authorization',
  'proxy-authenticate',
]);

/** How the request body travels: none, buffered (digest known up front) or streamed (digest in a trailer). */
export type ForwardBody =
  { kind: 'none' } | { kind: 'buffer'; data: Buffer } | { kind: 'stream'; trailer(digestHex: string): Record<string, string> };

export interface ForwardRequest {
  method: string;
  path: string;
  /** Called for every attempt, so a retry carries a fresh signature (each nonce is accepted once). */
  headers(): OutgoingHttpHeaders;
  /** The same headers without the signature, for the in-process path, which carries `identity` in memory. */
  unsignedHeaders(): OutgoingHttpHeaders;
  identity: ForwardedIdentity;
  body: ForwardBody;
  /** Added to the response unless the backend already set a header of that name (lower-case names). */
  responseHeaders: [string, string][];
  /** Called when the backend cannot be reached before any response byte was sent. */
  onUnreachable(err: Error): void;
}

export interface UpstreamForwarder {
  forward(req: IncomingMessage, res: ServerResponse, f: ForwardRequest): void;
  /**
   * Ends an answer this forwarder is relaying from the backend cleanly (the client sees a complete response),
   * dropping the backend exchange: for event streams at shutdown. False when `res` is not one it relays.
   */
  endRelayed(res: ServerResponse): boolean;
  close(): void;
}

const isRetryable = (err: NodeJS.ErrnoException) => err.code === 'ECONNRESET' || err.code === 'EPIPE';
/** Methods whose request, without a body, changes nothing when it reaches the backend twice. */
const RESENDABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS', 'DELETE']);

/**
 * Sends a request to the backend over a keep-alive agent and streams the answer back chunk by chunk (SSE
 * headers are flushed at once). A streamed body is hashed on its way and its signed digest follows as a
 * trailer. A request is sent a second time (once, on a fresh socket) only when the backend cannot have
 * received it: its socket never connected (refused, unreachable), or it has no body, a method that may be
 * repeated (GET, HEAD, OPTIONS, DELETE) and hit a keep-alive socket the backend just closed. A request with a
 * body that fails once its socket is connected is answered 502 (`onUnreachable`): the backend may have read and
 * committed it (docs/contracts.md "Delivery guarantees").
 */
export function createUpstreamForwarder(upstream: Upstream): UpstreamForwarder {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 1024, maxFreeSockets: 256, scheduling: 'lifo' });
  const target = 'socketPath' in upstream ? { socketPath: upstream.socketPath } : { host: upstream.host, port: upstream.port };

  /** The exchanges on their way over loopback, by the client's response. */
  const exchanges = new Map<ServerResponse, LoopbackExchange>();

  function forward(req: IncomingMessage, res: ServerResponse, f: ForwardRequest): void {
    if (upstream.inProcess && f.body.kind !== 'stream') return handOver(upstream.inProcess, req, res, f);
    const x: LoopbackExchange = { req, res, f, current: null, settled: false, relaying: null, ending: false };
    exchanges.set(res, x);
    res.on('close', () => {
      exchanges.delete(res);
      // The client went away (or the response ended): drop the backend exchange if it is still running.
      if (!res.writableFinished) x.current?.destroy();
    });
    send(x, true);
  }

  function endRelayed(res: ServerResponse): boolean {
    const x = exchanges.get(res);
    if (!x?.relaying) return false;
    x.ending = true;
    x.relaying.unpipe(res);
    x.current?.destroy();
    res.end();
    return true;
  }

  // Declared once here, not per request inside `forward`: under tsx (keepNames) a closure bound to a name is
  // named again every time it is made (test/architecture/hot-path-names.test.ts).
  function send(x: LoopbackExchange, mayRetry: boolean): void {
    const { req, res, f } = x;
    const streamed = f.body.kind === 'stream';
    const up = http.request({ ...target, agent, method: f.method, path: f.path, headers: f.headers() });
    x.current = up;
    // Whether a byte of this attempt can have reached the backend: not before its socket connected.
    let connected = false;
    up.once('socket', (socket) => {
      if (!socket.connecting) connected = true;
      else socket.once('connect', () => (connected = true));
    });
    up.on('response', (upRes) => {
      x.settled = true;
      relayResponse(upRes, x, f.responseHeaders);
    });
    up.on('error', (err: NodeJS.ErrnoException) => {
      if (x.settled || res.destroyed) return;
      if (mayRetry && !streamed && (!connected || (resendable(f) && up.reusedSocket && isRetryable(err)))) return send(x, false);
      x.settled = true;
      if (streamed) {
        req.unpipe(up);
        req.resume();
      }
      f.onUnreachable(err);
    });
    if (f.body.kind === 'stream') pipeWithTrailer(req, up, f.body.trailer);
    else if (f.body.kind === 'buffer') up.end(f.body.data);
    else up.end();
  }

  return {
    forward,
    endRelayed,
    close: () => agent.destroy(),
  };
}

/** Whether a request may reach the backend twice: no body, and a method that changes nothing the second time. */
const resendable = (f: ForwardRequest) => f.body.kind === 'none' && RESENDABLE_METHODS.has(f.method.toUpperCase());

/** One request on its way over loopback: the attempt in flight, and whether the client has had an answer. */
interface LoopbackExchange {
  req: IncomingMessage;
  res: ServerResponse;
  f: ForwardRequest;
  current: http.ClientRequest | null;
  settled: boolean;
  /** The backend's answer once it is being relayed. */
  relaying: IncomingMessage | null;
  /** The gateway ends the relayed answer itself (`endRelayed`): the backend's side closing is no failure then. */
  ending: boolean;
}

/**
 * The in-process path: the request object continues to the backend with the headers the loopback path would
 * send, minus the signature (client identity headers stripped; raw headers replaced too, so nothing the client
 * sent under an identity header name survives) and its identity in memory. The gateway's response headers are
 * set first so that the backend's own values win, as when relaying.
 */
function handOver(backend: NonNullable<Upstream['inProcess']>, req: IncomingMessage, res: ServerResponse, f: ForwardRequest): void {
  const headers: IncomingHttpHeaders = {};
  const raw: string[] = [];
  for (const [name, value] of Object.entries(f.unsignedHeaders())) {
    if (value === undefined) continue;
    const values = Array.isArray(value) ? value.map(String) : [String(value)];
    headers[name] = name === 'set-cookie' ? values : values.join(', ');
    for (const v of values) raw.push(name, v);
  }
  req.headers = headers;
  req.rawHeaders = raw;
  req.method = f.method;
  req.url = f.path;
  const own = backend.headersOnEveryAnswer;
  for (const [name, value] of f.responseHeaders) if (!own?.has(name)) res.setHeader(name, value);
  backend.identities.give(req, f.identity, f.body.kind === 'buffer' ? f.body.data : undefined);
  try {
    backend.listener(req, res);
  } catch (err) {
    f.onUnreachable(err as Error);
  }
}

function pipeWithTrailer(req: IncomingMessage, up: http.ClientRequest, trailer: (digestHex: string) => Record<string, string>): void {
  const hash = createHash('sha256');
  req.on('data', (chunk: Buffer) => hash.update(chunk));
  req.once('end', () => {
    if (up.destroyed) return;
    up.addTrailers(trailer(hash.digest('hex')));
    up.end();
  });
  req.pipe(up, { end: false });
}

function relayResponse(upRes: IncomingMessage, x: LoopbackExchange, extra: [string, string][]): void {
  const { res } = x;
  x.relaying = upRes;
  const raw = upRes.rawHeaders;
  const headers: string[] = [];
  let eventStream = false;
  const seen = extra.length > 0 ? new Set<string>() : null;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    if (lower === 'content-type' && raw[i + 1]!.toLowerCase().startsWith('text/event-stream')) eventStream = true;
    seen?.add(lower);
    headers.push(name, raw[i + 1]!);
  }
  for (const [name, value] of extra) if (!seen!.has(name)) headers.push(name, value);
  res.writeHead(upRes.statusCode ?? 502, upRes.statusMessage, headers);
  if (eventStream) res.flushHeaders();
  upRes.on('close', () => {
    // A backend that dies mid-body must not look like a complete response to the client.
    if (!upRes.complete && !x.ending) res.destroy();
  });
  upRes.pipe(res);
}
