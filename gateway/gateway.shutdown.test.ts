/**
 * The gateway's graceful shutdown (docs/contracts.md "Delivery guarantees": SIGTERM: readiness fails at once, keep-alive
 * answers carry `Connection: close`, in-flight requests and streams finish within SHUTDOWN_GRACE_MS), as the
 * `gateway` role runs it: the backend is another server reached over loopback. Real sockets on 127.0.0.1.
 */
import { once } from 'node:events';
import http from 'node:http';
import type { Socket } from 'node:net';

import { type GatewayFixture, startGatewayFixture } from './testing/gateway-fixture';

jest.setTimeout(20_000);

let fx: GatewayFixture;
let agent: http.Agent;
beforeEach(async () => {
  fx = await startGatewayFixture();
  agent = new http.Agent({ keepAlive: true, maxSockets: 4 });
});
afterEach(async () => {
  agent.destroy();
  await fx.close();
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  status: number;
  headers: http.IncomingHttpHeaders;
  text: string;
  /** The whole body arrived (a cut response is not complete). */
  complete: boolean;
  socket: Socket;
}

/** A request on the keep-alive agent; resolves once the answer has ended (or was cut). */
function request(method: string, path: string, body?: string): { sent: http.ClientRequest; answer: Promise<Answer> } {
  const sent = http.request({ host: '127.0.0.1', port: fx.port, method, path, agent });
  const answer = new Promise<Answer>((resolve, reject) => {
    sent.once('error', reject);
    sent.once('response', (res) => {
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (c: string) => (text += c));
      res.once('close', () =>
        resolve({ status: res.statusCode!, headers: res.headers, text, complete: res.complete, socket: res.socket ?? sent.socket! }),
      );
    });
  });
  if (body === undefined) sent.end();
  else sent.end(body);
  return { sent, answer };
}

function deferred() {
  let resolve!: () => void;
  const promise = new Promise<void>((r) => (resolve = r));
  return { promise, resolve };
}

it('fails readiness at once, finishes the request in flight with Connection: close, and closes once it is done', async () => {
  const release = deferred();
  let arrived = 0;
  fx.upstream.route('/api/public/agents/helper/slow', (req, res) => {
    arrived++;
    req.resume();
    void release.promise.then(() =>
      res.writeHead(200, { 'content-type': 'application/json', connection: 'keep-alive' }).end('{"ok":true}'),
    );
  });
  // Before shutdown: the backend's /health answers through the gateway, on a kept-alive connection.
  const before = await request('GET', '/health').answer;
  expect(before).toMatchObject({ status: 200, headers: { connection: 'keep-alive' } });
  const slow = request('POST', '/api/public/agents/helper/slow', '{"message":"hi"}');
  while (arrived === 0) await sleep(10);

  const closed = fx.gateway.close(10_000);
  let done = false;
  void closed.then(() => (done = true));

  // Readiness: answered by the gateway itself, 503, and that connection closes after it.
  for (const path of ['/health', '/ready']) {
    const probe = await request('GET', path).answer;
    expect({ path, status: probe.status, connection: probe.headers.connection }).toEqual({ path, status: 503, connection: 'close' });
  }
  // Any other request arriving during the grace is still served, with Connection: close.
  const during = await request('GET', '/api/public/agents/helper').answer;
  expect(during).toMatchObject({ status: 200, headers: { connection: 'close' } });
  expect(fx.upstream.received.filter((r) => r.url === '/health' || r.url === '/ready')).toHaveLength(1); // the one before

  await sleep(200);
  expect(done).toBe(false); // the slow request holds the shutdown
  release.resolve();
  const answer = await slow.answer;
  expect(answer).toMatchObject({ status: 200, text: '{"ok":true}', complete: true, headers: { connection: 'close' } });
  await closed; // and resolves once it is done, well before the grace
  await expect(request('GET', '/health').answer).rejects.toMatchObject({ code: 'ECONNREFUSED' });
});

it('closes an idle keep-alive connection cleanly when shutdown begins', async () => {
  const first = await request('GET', '/api/public/agents/helper').answer;
  expect(first.headers.connection).toBe('keep-alive');
  const socket = first.socket;
  const errors: Error[] = [];
  socket.on('error', (e) => errors.push(e));
  const ended = once(socket, 'close');
  fx.gateway.beginClose();
  await ended;
  expect(errors).toEqual([]);
  await fx.gateway.close(1000);
});

it('ends a relayed event-stream subscription cleanly at once, and lets a streamed answer to a POST finish', async () => {
  const finishChat = deferred();
  fx.upstream.route('/api/public/agents/helper/conversations/c1/events', (_req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
    res.write(': connected\n\n');
    // A subscription: only ever ends when the client goes away.
  });
  fx.upstream.route('/api/public/agents/helper/chat', (req, res) => {
    req.resume();
    res.writeHead(200, { 'content-type': 'text/event-stream' });
    res.write('data: {"token":"Hel"}\n\n');
    void finishChat.promise.then(() => res.end('data: {"done":true}\n\n'));
  });
  const subscription = request('GET', '/api/public/agents/helper/conversations/c1/events');
  const chat = request('POST', '/api/public/agents/helper/chat', '{"message":"hi","stream":true}');
  const firstBytes = (r: http.ClientRequest) =>
    new Promise<void>((resolve) => r.once('response', (res: http.IncomingMessage) => res.once('data', () => resolve())));
  await Promise.all([firstBytes(subscription.sent), firstBytes(chat.sent)]);

  const closed = fx.gateway.close(10_000);
  const events = await subscription.answer;
  expect(events).toMatchObject({ status: 200, complete: true, text: ': connected\n\n' }); // a clean end: EventSource reconnects
  await sleep(100);
  finishChat.resolve();
  const answer = await chat.answer;
  expect(answer).toMatchObject({ status: 200, complete: true, text: 'data: {"token":"Hel"}\n\ndata: {"done":true}\n\n' });
  await closed;
});

it('cuts what is still running at the deadline and stops', async () => {
  fx.upstream.route('/api/public/agents/helper/never', (req) => req.resume());
  const hung = request('GET', '/api/public/agents/helper/never');
  await sleep(100);
  const started = Date.now();
  await fx.gateway.close(300);
  expect(Date.now() - started).toBeLessThan(2000);
  await expect(hung.answer).rejects.toMatchObject({ code: 'ECONNRESET' });
});
