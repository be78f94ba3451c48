import { once } from 'node:events';
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { Hs256TokenSigner } from '../adapters/crypto/hs256.token-signer';
import { InProcessRateLimitStore } from '../adapters/memory/in-process.rate-limit-store';
import { createGateway } from './create-gateway';
import { call } from './testing/fake-upstream';
import { type GatewayFixture, startGatewayFixture } from './testing/gateway-fixture';

let fx: GatewayFixture;
beforeAll(async () => {
  fx = await startGatewayFixture();
});
afterAll(() => fx.close());

function deferred<T = void>() {
  let resolve!: (v: T) => void;
  const promise = new Promise<T>((r) => (resolve = r));
  return { promise, resolve };
}

describe('streaming', () => {
  it('passes SSE frames through one by one, unbuffered', async () => {
    const releases = [deferred(), deferred()];
    fx.upstream.route('/api/public/agents/helper/chat', async (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
      res.write('data: {"token":"Hel"}\n\n');
      await releases[0]!.promise; // the next frame is written only once the client has seen the first
      res.write('data: {"token":"lo"}\n\n');
      await releases[1]!.promise;
      res.end('data: {"done":true}\n\n');
    });

    const req = http.request({ host: '127.0.0.1', port: fx.port, method: 'POST', path: '/api/public/agents/helper/chat', agent: false });
    req.end('{"message":"hi","stream":true}');
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    expect(res.headers['content-type']).toBe('text/event-stream');
    res.setEncoding('utf8');
    const chunks = res[Symbol.asyncIterator]();
    const nextFrame = async () => (await chunks.next()).value as string;
    expect(await nextFrame()).toBe('data: {"token":"Hel"}\n\n');
    releases[0]!.resolve();
    expect(await nextFrame()).toBe('data: {"token":"lo"}\n\n');
    releases[1]!.resolve();
    expect(await nextFrame()).toBe('data: {"done":true}\n\n');
    expect((await chunks.next()).done).toBe(true);
  });

  it('streams request bodies to the backend as they arrive', async () => {
    const firstChunkSeen = deferred<string>();
    fx.upstream.route('/api/documents/upload', (req, res) => {
      let body = '';
      req.setEncoding('utf8');
      req.on('data', (c: string) => {
        if (!body) firstChunkSeen.resolve(c);
        body += c;
      });
      req.on('end', () => res.end(JSON.stringify({ received: body, te: req.headers['transfer-encoding'] ?? null })));
    });

    const req = http.request({
      host: '127.0.0.1',
      port: fx.port,
      method: 'POST',
      path: '/api/documents/upload',
      agent: false,
      headers: { authorization: `Bearer ${fx.accessToken}`, 'content-type': 'application/octet-stream' },
    });
    req.write('part-one;');
    // the backend sees the first part while the client has not sent the rest yet
    expect(await firstChunkSeen.promise).toBe('part-one;');
    req.end('part-two');
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    let text = '';
    for await (const c of res) text += c;
    expect(JSON.parse(text)).toEqual({ received: 'part-one;part-two', te: 'chunked' });
  });

  it('keeps Content-Length bodies byte-exact', async () => {
    const body = JSON.stringify({ email: 'a@b.c', password: 'é'.repeat(1000) });
    const r = await call(fx.port, { method: 'POST', path: '/api/auth/login', headers: { 'content-type': 'application/json' }, body });
    expect(r.json.body).toBe(body);
    expect(r.json.headers['content-length']).toBe(String(Buffer.byteLength(body)));
  });

  it('closes the backend exchange when the client goes away mid-stream', async () => {
    const upstreamClosed = deferred();
    fx.upstream.route('/api/public/agents/helper/long', (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      res.write('data: {"token":"x"}\n\n');
      res.on('close', () => upstreamClosed.resolve());
    });
    const req = http.request({ host: '127.0.0.1', port: fx.port, path: '/api/public/agents/helper/long', agent: false });
    req.end();
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    await once(res, 'data');
    req.destroy();
    await upstreamClosed.promise; // resolves only if the gateway hung up on the backend
  });

  it('cuts the client connection when the backend dies mid-body (no false clean end)', async () => {
    fx.upstream.route('/health/dies', (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'content-length': '100' });
      res.write('{"partial":');
      setImmediate(() => res.destroy());
    });
    const req = http.request({ host: '127.0.0.1', port: fx.port, path: '/health/dies', agent: false });
    req.end();
    const [res] = (await once(req, 'response')) as [http.IncomingMessage];
    res.on('error', () => undefined); // 'aborted'
    res.resume();
    await new Promise((r) => res.on('close', r));
    expect(res.complete).toBe(false);
  });
});

describe('backend unreachable', () => {
  it('answers 502 Bad Gateway with a JSON error body', async () => {
    const probe = http.createServer();
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r));
    const deadPort = (probe.address() as AddressInfo).port;
    await new Promise<void>((r) => probe.close(() => r()));

    const clock = { now: () => new Date() };
    const errors: string[] = [];
    const gateway = createGateway({
      upstream: { host: '127.0.0.1', port: deadPort },
      tokenSigner: new Hs256TokenSigner({ secret: 's'.repeat(32), clock }),
      verifyApiKey: async () => null,
      rateLimitStore: new InProcessRateLimitStore(),
      limits: { perIp: { limit: 100, windowSeconds: 60 }, perPrincipal: { limit: 100, windowSeconds: 60 } },
      internalSecret: 'internal',
      clock,
      onError: (_err, ctx) => errors.push(ctx),
    });
    const { port } = await gateway.listen(0, '127.0.0.1');
    try {
      const r = await call(port, { path: '/health' });
      expect(r.status).toBe(502);
      expect(r.json).toEqual({ error: 'Bad Gateway', message: expect.any(String), code: 'UPSTREAM_FAILED' });
      const p = await call(port, {
        method: 'POST',
        path: '/api/auth/login',
        body: '{"a":1}',
        headers: { 'content-type': 'application/json' },
      });
      expect(p.status).toBe(502);
      expect(errors).toEqual(['upstream', 'upstream']);
    } finally {
      await gateway.close(0);
    }
  });
});
