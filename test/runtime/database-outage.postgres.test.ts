/**
 * docs/contracts.md "Delivery guarantees": the database unreachable → 503 DATABASE_UNAVAILABLE with Retry-After, never
 * 500, and the platform recovers by itself once the database is back.
 *
 * The platform (`start`: gateway + api + worker in this process) runs on a scratch database of the real Postgres
 * server, reached through a TCP proxy of this test: shutting the proxy (listener closed, every connection cut) is
 * the database going away; listening again on the same port is the database coming back. The identity cache is
 * off so that every request reads the database for its identity: the api's actor (JWT) and the gateway's API-key
 * check.
 */
import { randomBytes } from 'node:crypto';

import type { VectorIndex } from '../../core/ports/vector-index';
import { createScratchDatabase, describeWithRealServices, type ScratchDatabase } from '../support/databases';
import { HttpClient } from '../support/http';
import { BOOT_TIMEOUT_MS, startTestPlatform, type TestPlatform } from '../support/platform';
import { admin, ADMIN_URL } from '../support/scratch-database';
import { TcpProxy } from '../support/tcp-proxy';
import { registerUser, type TestUser } from '../support/users';

/** The platform's database URL through the proxy. */
const urlThrough = (proxy: TcpProxy, database: string) => `postgres://postgres@127.0.0.1:${proxy.port}/${database}`;

/** The vector index is not what this suite is about (and this server may have no pgvector). */
const noVectors: VectorIndex = {
  id: 'none',
  upsert: async () => undefined,
  replaceDocument: async () => ({ deleted: 0, written: 0 }),
  deleteByDocument: async () => 0,
  deleteByKnowledgeBase: async () => 0,
  countByDocument: async () => 0,
  search: async () => ({ vector: [], text: [] }),
  close: async () => undefined,
};

interface Answer {
  request: string;
  status: number;
  code: unknown;
  retryAfter: string | null;
}

describeWithRealServices('the database unreachable', () => {
  let scratch: ScratchDatabase;
  let proxy: TcpProxy;
  let p: TestPlatform;
  let http: HttpClient;
  let owner: TestUser;
  let apiKey: string;

  beforeAll(async () => {
    // knex writes a line with a stack for every failed connect and broken connection (console.log): hundreds here.
    const log = console.log.bind(console);
    jest.spyOn(console, 'log').mockImplementation((...args: unknown[]) => {
      if (typeof args[0] === 'string' && /^(Acquire connection error|Connection Error):/.test(args[0])) return;
      log(...args);
    });
    scratch = await createScratchDatabase('db_outage');
    const server = new URL(ADMIN_URL);
    proxy = new TcpProxy({ host: server.hostname, port: Number(server.port || 5432) });
    await proxy.open();
    p = await startTestPlatform(
      {
        DATABASE_URL: urlThrough(proxy, scratch.name),
        IDENTITY_CACHE_TTL_MS: '0',
        RATE_LIMIT_PER_IP: '1000000',
        RATE_LIMIT_PER_PRINCIPAL: '1000000',
      },
      { memoryDatabase: false, knowledge: { vectorIndex: noVectors } },
    );
    http = p.http;
    owner = await registerUser(http, { label: 'outage' });
    const key = await http.post('/api/api-keys', { name: 'outage', scopes: ['agents:write'] }, { token: owner.accessToken });
    if (key.status !== 201) throw new Error(`api key: ${key.status} ${key.text}`);
    apiKey = key.body.key;
  }, BOOT_TIMEOUT_MS);
  afterAll(async () => {
    await p?.close();
    await proxy?.shut();
    await scratch?.drop();
    jest.restoreAllMocks();
  }, BOOT_TIMEOUT_MS);

  /** One of each kind of request that reads the database: identity (JWT, API key), a list, a create. */
  const requests: Record<string, () => ReturnType<HttpClient['get']>> = {
    'GET /api/auth/me': () => http.get('/api/auth/me', { token: owner.accessToken }),
    'GET /api/bots': () => http.get('/api/bots', { token: owner.accessToken }),
    'POST /api/bots': () =>
      http.post(
        '/api/bots',
        { name: `Agent ${randomBytes(3).toString('hex')}`, knowledgeBaseIds: [], isDraft: true },
        { token: owner.accessToken },
      ),
    'GET /v1/me (API key)': () => http.get('/v1/me', { token: apiKey }),
    // a key the gateway has never seen: its check is a database read
    'GET /v1/me (unknown API key)': () => http.get('/v1/me', { token: `ap_live_${randomBytes(16).toString('hex')}` }),
  };
  const round = () =>
    Promise.all(
      Object.entries(requests).map(async ([request, send]): Promise<Answer> => {
        const r = await send();
        return {
          request,
          status: r.status,
          code: (r.body as { code?: unknown } | undefined)?.code,
          retryAfter: r.headers.get('retry-after'),
        };
      }),
    );
  const unavailable = (request: string): Answer => ({ request, status: 503, code: 'DATABASE_UNAVAILABLE', retryAfter: '2' });
  const healthy = (answers: Answer[]) =>
    answers.map(({ request, status }) => ({ request, ok: request.includes('unknown') ? status === 401 : status >= 200 && status < 300 }));

  it('answers every request 503 DATABASE_UNAVAILABLE with Retry-After while it is away, within a few seconds, never 500', async () => {
    expect(healthy(await round()).every((a) => a.ok)).toBe(true);
    await proxy.shut();
    const started = Date.now();
    const answers: Answer[] = [];
    for (let i = 0; i < 8; i++) answers.push(...(await round()));
    expect(answers).toHaveLength(40);
    expect(answers.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
    expect(answers).toEqual(answers.map((a) => unavailable(a.request)));
    expect(Date.now() - started).toBeLessThan(15_000);
    // the api's readiness says so too
    const ready = await fetch(`${p.apiUrl}/ready`);
    expect(ready.status).toBe(503);
    expect(await ready.json()).toMatchObject({ status: 'not_ready', checks: { database: 'unavailable' } });
  }, 60_000);

  it('answers them again once the database is back, without a restart', async () => {
    await proxy.open(); // the same port: the platform's DATABASE_URL is unchanged
    const answers = [...(await round()), ...(await round())];
    expect(healthy(answers)).toEqual(answers.map(({ request }) => ({ request, ok: true })));
    expect((await fetch(`${p.apiUrl}/ready`)).status).toBe(200);
  }, 60_000);

  it("never answers 500 while the server terminates the platform's connections (pg_terminate_backend)", async () => {
    const answers: Answer[] = [];
    let running = true;
    const load = Promise.all(
      [1, 2, 3].map(async () => {
        while (running) answers.push(...(await round()));
      }),
    );
    let terminated = 0;
    const until = Date.now() + 4000;
    while (Date.now() < until) {
      const { rows } = await admin((c) =>
        c.query<{ done: boolean }>(
          'SELECT pg_terminate_backend(pid) AS done FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
          [scratch.name],
        ),
      );
      terminated += rows.filter((r) => r.done).length;
      await new Promise((r) => setTimeout(r, 50));
    }
    running = false;
    await load;
    expect(terminated).toBeGreaterThan(0);
    expect(answers.length).toBeGreaterThan(50);
    const failed = answers.filter((a) => !healthy([a])[0]!.ok);
    // Terminations that hit a statement in flight fail it: the case this test is about happened.
    expect(failed.length).toBeGreaterThan(0);
    // Each failure is the database's 503 with Retry-After (a terminated connection); none is a 500.
    expect(failed.filter((a) => a.status >= 500 && a.status !== 503)).toEqual([]);
    expect(failed).toEqual(failed.map((a) => unavailable(a.request)));
    // and the platform is whole again afterwards
    const after = await round();
    expect(healthy(after).every((a) => a.ok)).toBe(true);
  }, 60_000);
});
