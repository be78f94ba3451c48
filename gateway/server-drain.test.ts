/**
 * server-drain.ts on a plain node:http server, as the api (and, in `start`, the api's handlers writing straight into
 * the gateway's answers) uses it: the answer says `Connection: close` whatever the handler sets, an event stream
 * a GET opened ends cleanly when shutdown begins, and one that opens during the grace ends at once.
 */
import { once } from 'node:events';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { drainable, type ServerDrain } from './server-drain';

jest.setTimeout(15_000);

let server: http.Server;
let drain: ServerDrain;
let handler: (req: IncomingMessage, res: ServerResponse) => void;
let agent: http.Agent;

beforeEach(async () => {
  server = http.createServer((req, res) => handler(req, res));
  drain = drainable(server);
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  agent = new http.Agent({ keepAlive: true });
});
afterEach(async () => {
  agent.destroy();
  await drain.close(Date.now());
});

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function get(path: string, method = 'GET'): Promise<{ res: IncomingMessage; text: Promise<string> }> {
  const req = http.request({ host: '127.0.0.1', port: (server.address() as AddressInfo).port, method, path, agent });
  req.end();
  return (once(req, 'response') as Promise<[IncomingMessage]>).then(([res]) => ({
    res,
    text: (async () => {
      let text = '';
      for await (const c of res) text += c;
      return text;
    })(),
  }));
}

/** An SSE writer like adapters/http/sse.ts: says keep-alive itself and writes only while the answer is open. */
function openStream(res: ServerResponse): (frame: string) => void {
  res.setHeader('Content-Type', 'text/event-stream');
  res.setHeader('Connection', 'keep-alive');
  res.flushHeaders();
  return (frame) => {
    if (!res.writableEnded && !res.destroyed) res.write(frame);
  };
}

it('says Connection: close on an answer whose handler sets keep-alive, once shutdown has begun', async () => {
  handler = (_req, res) => {
    res.setHeader('Connection', 'keep-alive');
    res.writeHead(200, { Connection: 'keep-alive', 'content-type': 'text/plain' }).end('ok');
  };
  const before = await get('/');
  expect(before.res.headers.connection).toBe('keep-alive');
  await before.text;
  drain.begin();
  await sleep(50); // the idle kept-alive connection is closed by now: the agent opens another
  const after = await get('/');
  expect(after.res.headers.connection).toBe('close');
  expect(await after.text).toBe('ok');
  expect(drain.draining).toBe(true);
});

it('ends a GET event stream cleanly when shutdown begins, and one that opens during the grace at once', async () => {
  handler = (_req, res) => {
    const send = openStream(res);
    send(': connected\n\n');
    const timer = setInterval(() => send(': ping\n\n'), 20);
    res.once('close', () => clearInterval(timer));
  };
  const open = await get('/events');
  await sleep(60);
  drain.begin();
  const text = await open.text;
  expect(open.res.complete).toBe(true);
  expect(text.startsWith(': connected\n\n')).toBe(true);
  await sleep(50);

  const late = await get('/events');
  expect(late.res.headers.connection).toBe('close');
  expect(await late.text).toBe(': connected\n\n');
  expect(late.res.complete).toBe(true);
});

it('lets a POST stream run on until the deadline, then ends it cleanly', async () => {
  handler = (req, res) => {
    req.resume();
    const send = openStream(res);
    send('data: 1\n\n');
  };
  const chat = await get('/chat', 'POST');
  drain.begin();
  await sleep(100);
  expect(chat.res.complete).toBe(false); // still running: an answer to a write is not cut short
  const started = Date.now();
  await drain.close(Date.now() + 200);
  expect(Date.now() - started).toBeGreaterThanOrEqual(150);
  expect(await chat.text).toBe('data: 1\n\n');
  expect(chat.res.complete).toBe(true);
});
