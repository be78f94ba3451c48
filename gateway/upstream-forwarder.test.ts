/**
 * The loopback path of the forwarder (split roles, streamed bodies): a request that lands on a keep-alive socket
 * the backend has just dropped is sent again, once, on a fresh socket with fresh headers; a streamed body, which
 * cannot be sent twice, is not.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

import { createUpstreamForwarder, type ForwardBody, type UpstreamForwarder } from './upstream-forwarder';

let backend: http.Server;
let front: http.Server;
let forwarder: UpstreamForwarder;
/** What the backend saw: the socket each request came on, and the attempt header the forwarder sent. */
const seen: { socket: number; attempt: string }[] = [];
const unreachable: Error[] = [];
const bodyOf = (req: http.IncomingMessage): ForwardBody =>
  req.method === 'POST' ? { kind: 'stream', trailer: () => ({}) } : { kind: 'none' };
const backendAt = () => ({ host: '127.0.0.1', port: (backend.address() as AddressInfo).port });

beforeAll(async () => {
  const sockets = new Map<Socket, number>();
  const served = new Map<Socket, number>();
  backend = http.createServer((req, res) => {
    if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size);
    const n = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, n);
    seen.push({ socket: sockets.get(req.socket)!, attempt: String(req.headers['x-attempt']) });
    // The second request on a socket finds it gone, as when a backend closes an idle keep-alive connection.
    if (n === 2) return void req.socket.destroy();
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  backend.listen(0, '127.0.0.1');
  await once(backend, 'listening');
  front = http.createServer((req, res) => {
    let attempts = 0;
    forwarder.forward(req, res, {
      method: req.method!,
      path: req.url!,
      headers: () => ({ 'x-attempt': String(++attempts), ...(req.headers['transfer-encoding'] ? { 'transfer-encoding': 'chunked' } : {}) }),
      unsignedHeaders: () => ({}),
      identity: {} as never,
      body: bodyOf(req),
      responseHeaders: [],
      onUnreachable: (err) => {
        unreachable.push(err);
        res.writeHead(502).end('unreachable');
      },
    });
  });
  front.listen(0, '127.0.0.1');
  await once(front, 'listening');
});

afterAll(async () => {
  forwarder.close();
  await Promise.all([new Promise((r) => front.close(r)), new Promise((r) => backend.close(r))]);
});

async function get(method = 'GET', payload?: string): Promise<{ status: number; text: string }> {
  const req = http.request({ host: '127.0.0.1', port: (front.address() as AddressInfo).port, method, path: '/x', agent: false });
  if (payload !== undefined) req.setHeader('transfer-encoding', 'chunked');
  req.end(payload);
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  let text = '';
  for await (const c of res) text += c;
  return { status: res.statusCode!, text };
}

beforeEach(() => {
  forwarder?.close(); // no pooled socket from an earlier test
  forwarder = createUpstreamForwarder(backendAt());
  seen.length = 0;
  unreachable.length = 0;
});

it('sends a request again on a fresh socket when the reused one is dropped, with fresh headers', async () => {
  expect(await get()).toEqual({ status: 200, text: 'ok' });
  expect(await get()).toEqual({ status: 200, text: 'ok' });
  const [first, dropped, retried] = seen;
  expect(seen).toHaveLength(3);
  expect(dropped!.socket).toBe(first!.socket); // the keep-alive socket was reused, then dropped
  expect(retried!.socket).not.toBe(first!.socket);
  expect([dropped!.attempt, retried!.attempt]).toEqual(['1', '2']);
  expect(unreachable).toEqual([]);
});

it('does not send a streamed body twice: the client gets the unreachable answer', async () => {
  expect(await get()).toEqual({ status: 200, text: 'ok' }); // a fresh socket, kept alive
  expect(await get('POST', 'streamed')).toEqual({ status: 502, text: 'unreachable' });
  expect(unreachable).toHaveLength(1);
  expect(seen.map((s) => s.attempt)).toEqual(['1', '1']);
});
