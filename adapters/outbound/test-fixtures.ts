import http from 'node:http';
import type { AddressInfo } from 'node:net';

import type { HostLookup } from './ssrf-guarded.fetcher';

/** Test helpers for the outbound fetcher: local servers on 127.0.0.1 and a fake resolver. */

export interface SeenRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface FixtureServer {
  port: number;
  seen: SeenRequest[];
  close(): Promise<void>;
}

export type Route = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

export async function startServer(route: Route): Promise<FixtureServer> {
  const seen: SeenRequest[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString();
      seen.push({ method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
      route(req, res, body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    port: (server.address() as AddressInfo).port,
    seen,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 where nothing listens (a server was bound, then closed). */
export async function closedPort(): Promise<number> {
  const server = await startServer((_req, res) => res.end());
  await server.close();
  return server.port;
}

export interface FakeResolver {
  lookup: HostLookup;
  calls: string[];
}

type Answer = { address: string; family: 4 | 6 };

/**
 * A resolver over a fixed table. A value that is a function gets the call count for that name, so
 * a test can answer differently over time (DNS rebinding). Unknown names fail with ENOTFOUND.
 */
export function fakeResolver(table: Record<string, Answer[] | ((call: number) => Answer[])>): FakeResolver {
  const calls: string[] = [];
  const lookup: HostLookup = async (hostname) => {
    calls.push(hostname);
    const entry = table[hostname];
    if (!entry) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${hostname}`), { code: 'ENOTFOUND' });
    return typeof entry === 'function' ? entry(calls.filter((h) => h === hostname).length) : entry;
  };
  return { lookup, calls };
}

export const v4 = (address: string): Answer[] => [{ address, family: 4 }];
export const v6 = (address: string): Answer[] => [{ address, family: 6 }];
