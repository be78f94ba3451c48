import type { IncomingMessage, OutgoingHttpHeaders, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/**
 * Graceful shutdown of one HTTP server (docs/contracts.md "Delivery guarantees": SIGTERM: readiness fails at once,
 * keep-alive answers carry `Connection: close`, in-flight requests and streams finish within SHUTDOWN_GRACE_MS).
 */
export interface ServerDrain {
  /** True once shutdown has begun (readiness answers 503 from then on). */
  readonly draining: boolean;
  /**
   * Shutdown begins (again: nothing more happens): every answer whose head is not written yet says
   * `Connection: close` and its connection closes after it; idle keep-alive connections close now; subscriptions
   * (GET event streams) end cleanly, so an EventSource reconnects elsewhere. The server still listens: a
   * connection that arrives meanwhile is answered the same way, readiness probes get their 503.
   */
  begin(): void;
  /**
   * `begin()`, then waits until no request is in flight or `deadline` (ms since the epoch) has come, whichever is
   * first; at the deadline the event streams still running are ended cleanly and every other connection is
   * destroyed. The server stops listening, and the promise resolves, once that is done.
   */
  close(deadline: number): Promise<void>;
}

export interface ServerDrainOptions {
  /** Ends an event stream cleanly (default `res.end()`); the gateway ends the ones it relays itself. */
  endStream?: (res: ServerResponse) => void;
}

type WriteHead = ServerResponse['writeHead'];

const isEventStream = (res: ServerResponse) => /^text\/event-stream/i.test(String(res.getHeader('content-type') ?? ''));
const isSubscription = (res: ServerResponse) => res.req?.method === 'GET' && isEventStream(res);

/** Tracks `server`'s requests and connections so that it can be drained. Call before the server takes requests. */
export function drainable(server: Server, options: ServerDrainOptions = {}): ServerDrain {
  const endStream = options.endStream ?? ((res: ServerResponse) => void res.end());
  const inFlight = new Set<ServerResponse>();
  /** Every open connection, with the number of requests it carries now (0: idle, or none arrived yet). */
  const connections = new Map<Socket, { active: number; served: number }>();
  let draining = false;
  let closing: Promise<void> | null = null;
  let settle: (() => void) | null = null;

  // One listener of each kind for the server's lifetime, shared by every connection and request (`this` is the
  // socket or the response): nothing is allocated per request beyond the bookkeeping itself.
  function onSocketClose(this: Socket): void {
    connections.delete(this);
  }
  function onResponseClose(this: ServerResponse): void {
    inFlight.delete(this);
    const socket = this.req.socket;
    const connection = connections.get(socket);
    if (connection) connection.active--;
    if (!draining) return;
    // An answer whose head went out before shutdown promised keep-alive: its connection ends now it is done.
    if (connection?.active === 0 && !socket.destroyed && !socket.writableEnded) socket.end();
    if (inFlight.size === 0) settle?.();
  }
  server.on('connection', (socket: Socket) => {
    connections.set(socket, { active: 0, served: 0 });
    socket.on('close', onSocketClose);
  });
  // Before the application's own listener: the answer is marked before the application writes its head.
  server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => {
    const connection = connections.get(req.socket);
    if (connection) {
      connection.active++;
      connection.served++;
    }
    inFlight.add(res);
    if (draining) closeAfter(res, endStream);
    res.on('close', onResponseClose);
  });

  function begin(): void {
    if (draining) return;
    draining = true;
    for (const res of inFlight) {
      if (!res.headersSent) closeAfter(res, endStream);
      else if (isSubscription(res) && !res.writableEnded) endStream(res);
    }
    // Connections that have served a request and wait for the next one; a fresh one gets its answer.
    for (const [socket, c] of connections) if (c.active === 0 && c.served > 0) socket.destroy();
  }

  function close(deadline: number): Promise<void> {
    begin();
    closing ??= new Promise<void>((resolve) => {
      const finish = () => {
        clearTimeout(timer);
        settle = null;
        server.close(() => resolve());
        for (const socket of connections.keys()) socket.destroy();
      };
      const timer = setTimeout(
        () => {
          // The grace is over: event streams get a clean end; everything else is cut.
          for (const res of inFlight) if (res.headersSent && isEventStream(res) && !res.writableEnded) endStream(res);
          finish();
        },
        Math.max(0, deadline - Date.now()),
      );
      settle = finish;
      if (inFlight.size === 0) finish();
    });
    return closing;
  }

  return {
    get draining() {
      return draining;
    },
    begin,
    close,
  };
}

/**
 * The answer says `Connection: close` whatever the application sets (an SSE writer says keep-alive) and Node
 * closes its connection once it is sent; a subscription that opens now ends at once, cleanly.
 */
function closeAfter(res: ServerResponse, endStream: (res: ServerResponse) => void): void {
  res.shouldKeepAlive = false;
  const writeHead: WriteHead = res.writeHead;
  const closing = function (this: ServerResponse, status: number, ...rest: unknown[]) {
    const at = typeof rest[0] === 'string' ? 1 : 0;
    if (rest[at] !== undefined) rest[at] = withoutConnection(rest[at] as OutgoingHttpHeaders | string[]);
    this.setHeader('connection', 'close');
    const result = (writeHead as (this: ServerResponse, status: number, ...rest: unknown[]) => ServerResponse).call(this, status, ...rest);
    if (isSubscription(this)) setImmediate(() => !this.writableEnded && endStream(this));
    return result;
  };
  res.writeHead = closing as WriteHead;
}

function withoutConnection(headers: OutgoingHttpHeaders | string[]): OutgoingHttpHeaders | string[] {
  if (Array.isArray(headers)) {
    const kept: string[] = [];
    for (let i = 0; i < headers.length; i += 2) {
      if (String(headers[i]).toLowerCase() !== 'connection') kept.push(headers[i]!, headers[i + 1]!);
    }
    return kept;
  }
  const kept: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) if (name.toLowerCase() !== 'connection') kept[name] = value;
  return kept;
}
