/**
 * The api's side of graceful shutdown (the `api` role's server, here inside `start`): once shutdown begins its own
 * `/ready` (the chart's readiness probe of the api pods) answers 503 naming `serving`, `/health` (liveness) still
 * answers 200, every answer carries `Connection: close`, and a request in flight (a registration whose chunked body
 * the gateway streams to the api over loopback, sent slowly by the client) completes before `close` resolves.
 */
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { loadConfig } from '../../app/configuration';
import { type RunningPlatform, startPlatform } from '../../app/platform';
import { BOOT_TIMEOUT_MS, cheapPasswords, TEST_INTERNAL_SECRET, TEST_JWT_SECRET } from '../support/platform';

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** A GET on a connection of its own (a probe's), its status, `Connection` header and JSON body. */
function probe(url: string): Promise<{ status: number; connection: string | undefined; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: false }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (c: string) => (text += c));
        res.on('end', () => resolve({ status: res.statusCode!, connection: res.headers.connection, body: JSON.parse(text) }));
      })
      .on('error', reject);
  });
}

let platform: RunningPlatform;
let dataDir: string;
let closed: Promise<void> | null = null;

beforeAll(async () => {
  dataDir = mkdtempSync(join(tmpdir(), 'ap-api-shutdown-'));
  const config = loadConfig('start', {
    DATA_DIR: dataDir,
    PORT: '0',
    LOG_LEVEL: 'silent',
    JWT_SECRET: TEST_JWT_SECRET,
    INTERNAL_SECRET: TEST_INTERNAL_SECRET,
    WEBHOOK_SIGNING_SECRET: 'test-webhook-secret-0123456789',
  });
  platform = await startPlatform(config, { memoryDatabase: true, passwords: cheapPasswords() });
}, BOOT_TIMEOUT_MS);

afterAll(async () => {
  await (closed ?? platform?.close());
  rmSync(dataDir, { recursive: true, force: true });
}, 30_000);

it('fails /ready at once, keeps /health, answers with Connection: close, and lets the request in flight finish', async () => {
  const ready = await probe(`${platform.apiUrl}/ready`);
  expect(ready).toMatchObject({ status: 200, body: { status: 'ready', checks: { database: 'ok', serving: 'ok' } } });

  const { hostname, port } = new URL(platform.gatewayUrl);
  const register = http.request({
    host: hostname,
    port: Number(port),
    method: 'POST',
    path: '/api/auth/register',
    agent: new http.Agent({ keepAlive: true }),
    headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
  });
  const answered = once(register, 'response') as Promise<[http.IncomingMessage]>;
  const body = JSON.stringify({ email: 'drain@example.com', password: 'a-long-enough-password-42', displayName: 'Drain' });
  register.write(body.slice(0, 20));
  await sleep(300);

  closed = platform.close(Date.now() + 15_000);
  let done = false;
  void closed.then(() => (done = true));

  const notReady = await probe(`${platform.apiUrl}/ready`);
  expect(notReady).toMatchObject({ status: 503, connection: 'close', body: { status: 'not_ready', checks: { serving: 'unavailable' } } });
  // Liveness is not readiness: a draining api must not be restarted.
  expect(await probe(`${platform.apiUrl}/health`)).toMatchObject({ status: 200, connection: 'close' });

  await sleep(200);
  expect(done).toBe(false);
  register.end(body.slice(20));
  const [res] = await answered;
  let text = '';
  for await (const c of res) text += c;
  expect(res.statusCode).toBe(201);
  expect(res.headers.connection).toBe('close');
  expect(JSON.parse(text)).toMatchObject({ success: true, data: { user: { email: 'drain@example.com' } } });
  await closed;
}, 60_000);
