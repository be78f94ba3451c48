/**
 * docs/contracts.md "Delivery guarantees": the gateway never sends a request with a body a second time once the backend may
 * have received it. Real sockets on 127.0.0.1: a backend that reads a POST body whole, counts it and then drops the
 * connection without answering (an api replica killed after its commit) is reached over a kept-alive socket; the
 * client gets 502 and the backend saw the body once. A request that cannot have reached the backend (its socket
 * never connected) or one without a body whose method may be repeated is still sent again, transparently.
 */
import { once } from 'node:events';
import http from 'node:http';
import net, { type AddressInfo, type Socket } from 'node:net';

import { forwardBodyFor } from './request-body';
import { createUpstreamForwarder, type UpstreamForwarder } from './upstream-forwarder';

jest.setTimeout(15_000);

let backend: http.Server;
let front: http.Server;
let forwarder: UpstreamForwarder;
/** Bodies the backend read to the end (what it would have committed), by path. */
const committed: Record<string, number> = {};
/** Requests whose headers reached the backend, with the index of the socket each came on. */
const arrivals: { method: string; path: string; socket: number }[] = [];
const unreachable: Error[] = [];
/** The backend's sockets in the order they arrived (numbered per test), and the requests each has carried. */
const sockets = new Map<Socket, number>();
const served = new Map<Socket, number>();

beforeAll(async () => {
  backend = http.createServer((req, res) => {
    if (!sockets.has(req.socket)) sockets.set(req.socket, sockets.size);
    const nth = (served.get(req.socket) ?? 0) + 1;
    served.set(req.socket, nth);
    arrivals.push({ method: req.method!, path: req.url!, socket: sockets.get(req.socket)! });
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      if (req.url === '/commit-then-die') {
        // The body is read and "saved"; the process dies before the answer goes out.
        committed[req.url] = (committed[req.url] ?? 0) + 1;
        return void req.socket.destroy();
      }
      // The second request on a socket finds the connection dropped (a backend restarting under a kept-alive socket).
      if (req.url === '/dropped-when-reused' && nth === 2) return void req.socket.destroy();
      if (chunks.length) committed[req.url!] = (committed[req.url!] ?? 0) + 1;
      res.end(`ok ${Buffer.concat(chunks).length}`);
    });
  });
  backend.listen(0, '127.0.0.1');
  await once(backend, 'listening');
  front = http.createServer((req, res) => {
    // The gateway's own choice of body kind: a small body with a Content-Length is read first (a buffered body).
    const reading = forwardBodyFor(req, 1024 * 1024, () => ({}));
    void Promise.resolve(reading).then((body) => {
      if (!body) return;
      forwarder.forward(req, res, {
        method: req.method!,
        path: req.url!,
        headers: () => ({ ...(body.kind === 'buffer' ? { 'content-length': String(body.data.length) } : {}) }),
        unsignedHeaders: () => ({}),
        identity: {} as never,
        body,
        responseHeaders: [],
        onUnreachable: (err) => {
          unreachable.push(err);
          res.writeHead(502).end('unreachable');
        },
      });
    });
  });
  front.listen(0, '127.0.0.1');
  await once(front, 'listening');
});

afterAll(async () => {
  forwarder?.close();
  jest.restoreAllMocks();
  await Promise.all([new Promise((r) => front.close(r)), new Promise((r) => backend.close(r))]);
});

beforeEach(() => {
  forwarder?.close(); // no pooled socket from an earlier test
  forwarder = createUpstreamForwarder({ host: '127.0.0.1', port: (backend.address() as AddressInfo).port });
  for (const k of Object.keys(committed)) delete committed[k];
  arrivals.length = 0;
  unreachable.length = 0;
  sockets.clear();
  served.clear();
});

afterEach(() => jest.restoreAllMocks());

async function call(method: string, path: string, payload?: string): Promise<{ status: number; text: string }> {
  const req = http.request({ host: '127.0.0.1', port: (front.address() as AddressInfo).port, method, path, agent: false });
  if (payload !== undefined) req.setHeader('content-length', Buffer.byteLength(payload));
  req.end(payload);
  const [res] = (await once(req, 'response')) as [http.IncomingMessage];
  let text = '';
  for await (const c of res) text += c;
  return { status: res.statusCode!, text };
}

it('answers 502 and does not send a body again when the backend read it and dropped a kept-alive connection', async () => {
  expect(await call('GET', '/warm-up')).toEqual({ status: 200, text: 'ok 0' }); // a socket, kept alive in the pool
  expect(await call('POST', '/commit-then-die', JSON.stringify({ chat: 'hello' }))).toEqual({ status: 502, text: 'unreachable' });
  expect(committed['/commit-then-die']).toBe(1);
  expect(arrivals.filter((a) => a.path === '/commit-then-die')).toEqual([{ method: 'POST', path: '/commit-then-die', socket: 0 }]);
  expect(arrivals[0]!.socket).toBe(0); // the POST went on the kept-alive socket of the warm-up
  expect(unreachable).toHaveLength(1);
});

it('does not send a body-less POST again either: a POST may act without a body', async () => {
  expect(await call('POST', '/dropped-when-reused')).toEqual({ status: 200, text: 'ok 0' });
  expect(await call('POST', '/dropped-when-reused')).toEqual({ status: 502, text: 'unreachable' });
  expect(arrivals.map((a) => a.socket)).toEqual([0, 0]);
});

it('sends a GET again, transparently, on a fresh socket when the kept-alive one is dropped', async () => {
  expect(await call('GET', '/dropped-when-reused')).toEqual({ status: 200, text: 'ok 0' });
  expect(await call('GET', '/dropped-when-reused')).toEqual({ status: 200, text: 'ok 0' });
  expect(arrivals.map((a) => a.socket)).toEqual([0, 0, 1]); // dropped on the reused socket, answered on a new one
  expect(unreachable).toEqual([]);
});

it('sends a body again when the first attempt never connected (refused): the backend cannot have received it', async () => {
  // A port nothing listens on: the first connection the forwarder opens goes there and is refused.
  const closed = net.createServer().listen(0, '127.0.0.1');
  await once(closed, 'listening');
  const refusedPort = (closed.address() as AddressInfo).port;
  await new Promise((r) => closed.close(r));
  const backendPort = (backend.address() as AddressInfo).port;
  const real = http.Agent.prototype.createConnection;
  const toBackend: number[] = [];
  jest.spyOn(http.Agent.prototype, 'createConnection').mockImplementation(function (this: http.Agent, options, cb) {
    if (options.port !== backendPort) return real.call(this, options, cb);
    toBackend.push(toBackend.length === 0 ? refusedPort : backendPort);
    return real.call(this, { ...options, port: toBackend.at(-1) }, cb);
  });
  expect(await call('POST', '/saved', JSON.stringify({ chat: 'hello' }))).toEqual({ status: 200, text: 'ok 16' });
  expect(toBackend).toEqual([refusedPort, backendPort]);
  expect(committed['/saved']).toBe(1);
  expect(unreachable).toEqual([]);
});
