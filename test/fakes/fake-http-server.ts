import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface RecordedRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  /** The body parsed as JSON when it is JSON. */
  json?: any;
}

export interface FakeReply {
  status?: number;
  headers?: Record<string, string>;
  /** JSON body. */
  json?: unknown;
  /** Raw body (text or bytes). */
  body?: string | Buffer;
  /** Server-sent events: each string is written as-is, one write per entry, with a pause between writes. */
  sse?: string[];
  /** Keep the connection open after the last SSE write (to test client aborts). */
  holdOpen?: boolean;
  /** Close the socket without any response (a network failure). */
  destroy?: boolean;
}

export type FakeRoute = (request: RecordedRequest) => FakeReply | undefined;

const pause = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/**
 * A scripted HTTP upstream on 127.0.0.1 and a free port. Requests are recorded; each is answered by the next
 * queued reply (`replyOnce`) or else by the route function; no answer is a 404.
 */
export class FakeHttpServer {
  readonly requests: RecordedRequest[] = [];
  private readonly queue: FakeReply[] = [];
  private server?: Server;
  private held = new Set<ServerResponse>();

  constructor(
    private readonly route: FakeRoute,
    private readonly sseDelayMs = 2,
  ) {}

  /** Starts listening and returns the base URL (`http://127.0.0.1:<port>`). */
  async start(): Promise<string> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const body = Buffer.concat(chunks);
        const recorded: RecordedRequest = { method: req.method ?? 'GET', path: req.url ?? '/', headers: req.headers, body };
        if (String(req.headers['content-type'] ?? '').includes('json')) {
          try {
            recorded.json = JSON.parse(body.toString('utf8'));
          } catch {
            // leave json undefined
          }
        }
        this.requests.push(recorded);
        void this.answer(res, this.queue.shift() ?? this.route(recorded) ?? { status: 404, json: { error: 'no route' } });
      });
    });
    await new Promise<void>((resolve) => this.server!.listen(0, '127.0.0.1', resolve));
    return `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  replyOnce(...replies: FakeReply[]): this {
    this.queue.push(...replies);
    return this;
  }

  /** The last recorded request (fails loudly when none). */
  last(): RecordedRequest {
    const r = this.requests[this.requests.length - 1];
    if (!r) throw new Error('no request recorded');
    return r;
  }

  reset(): void {
    this.requests.length = 0;
    this.queue.length = 0;
  }

  async close(): Promise<void> {
    for (const res of this.held) res.destroy();
    if (!this.server) return;
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server!.close(() => resolve()));
  }

  private async answer(res: ServerResponse, reply: FakeReply): Promise<void> {
    if (reply.destroy) {
      res.socket?.destroy();
      return;
    }
    if (reply.sse) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache', ...reply.headers });
      res.flushHeaders();
      for (const event of reply.sse) {
        if (res.destroyed) return;
        res.write(event);
        await pause(this.sseDelayMs);
      }
      if (reply.holdOpen) {
        this.held.add(res);
        res.on('close', () => this.held.delete(res));
        return;
      }
      res.end();
      return;
    }
    const isJson = reply.json !== undefined;
    const body = isJson ? JSON.stringify(reply.json) : (reply.body ?? '');
    res.writeHead(reply.status ?? 200, { 'content-type': isJson ? 'application/json' : 'application/octet-stream', ...reply.headers });
    res.end(body);
  }
}

/** One SSE frame: `event: <name>` (optional) and `data: <json or text>`, ended by a blank line. */
export function sseFrame(data: unknown, event?: string): string {
  return `${event ? `event: ${event}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`;
}
