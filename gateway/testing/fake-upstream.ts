import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
}

export interface FakeUpstream {
  port: number;
  received: ReceivedRequest[];
  /** Replaces the echo for requests whose path starts with `prefix`. */
  route(prefix: string, handler: (req: IncomingMessage, res: ServerResponse) => void): void;
  close(): Promise<void>;
}

/** A backend stand-in on 127.0.0.1:<random>: answers 200 with JSON echoing method, url, headers and body. */
export async function startFakeUpstream(): Promise<FakeUpstream> {
  const received: ReceivedRequest[] = [];
  const routes: [string, (req: IncomingMessage, res: ServerResponse) => void][] = [];
  const server = http.createServer((req, res) => {
    const custom = routes.find(([prefix]) => req.url?.startsWith(prefix));
    if (custom) return custom[1](req, res);
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const echo = { method: req.method ?? '', url: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString('utf8') };
      received.push(echo);
      const body = JSON.stringify(echo);
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body), 'x-upstream': 'yes' });
      res.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    received,
    route: (prefix, handler) => {
      routes.push([prefix, handler]);
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export interface CallResult {
  status: number;
  headers: IncomingHttpHeaders;
  text: string;
  json: any;
}

/** One request on a fresh connection; the path is sent byte for byte. */
export function call(
  port: number,
  opts: { method?: string; path: string; headers?: Record<string, string | string[] | undefined>; body?: string },
): Promise<CallResult> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      { host: '127.0.0.1', port, method: opts.method ?? 'GET', path: opts.path, headers: opts.headers, agent: false },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json: unknown = null;
          try {
            json = JSON.parse(text);
          } catch {
            /* not JSON */
          }
          resolve({ status: res.statusCode ?? 0, headers: res.headers, text, json });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(opts.body);
  });
}
