/**
 * isDatabaseUnavailable on the errors node-postgres and knex really produce: a closed port, a server that
 * closes or never answers, a pool that waits in vain, and (on the real Postgres server) backends ended with
 * pg_terminate_backend; and refusals of a database that answers, which are not unavailability.
 */
import net from 'node:net';

import knex, { type Knex } from 'knex';
import pg from 'pg';

import { createScratchDatabase, realServices, type ScratchDatabase } from '../../test/support/databases';
import { admin } from '../../test/support/scratch-database';
import { toHttpError } from '../http/error-mapper';
import { openDatabase } from './database';
import { isDatabaseUnavailable } from './database-errors';

const QUIET = { warn: () => undefined, error: () => undefined, debug: () => undefined, deprecate: () => undefined };
const describeWithPostgres = realServices ? describe : describe.skip;

/** What `promise` rejected with (fails the test if it resolved). */
async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** A port nothing listens on (bound, then closed). */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as net.AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** A TCP server that does `onSocket` with every connection (close it at once, or never answer). */
async function tcpServer(onSocket: (socket: net.Socket) => void) {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    onSocket(socket);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `postgres://postgres@127.0.0.1:${(server.address() as net.AddressInfo).port}/postgres`,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise((resolve) => server.close(resolve));
    },
  };
}

const expectUnavailable = (error: unknown) => {
  expect(isDatabaseUnavailable(error)).toBe(true);
  const { status, body, retryAfterSeconds } = toHttpError(error);
  expect({ status, code: body.code, retryAfterSeconds }).toEqual({ status: 503, code: 'DATABASE_UNAVAILABLE', retryAfterSeconds: 2 });
  expect(body).toEqual({
    error: 'Service Unavailable',
    message: 'The database is unavailable; try again shortly',
    code: 'DATABASE_UNAVAILABLE',
  });
};

describe('isDatabaseUnavailable on errors of a database that cannot be reached', () => {
  it('a connect to a closed port (node-postgres and knex): ECONNREFUSED', async () => {
    const port = await closedPort();
    const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    const client = new pg.Client({ connectionString: url });
    const direct = await rejectionOf(client.connect());
    expect(direct).toMatchObject({ code: 'ECONNREFUSED' });
    expectUnavailable(direct);

    const db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 2000, log: QUIET });
    try {
      const viaKnex = await rejectionOf(db.raw('select 1'));
      expect(viaKnex).toMatchObject({ code: 'ECONNREFUSED' });
      expectUnavailable(viaKnex);
      // wrapped by a caller, or in the AggregateError of a name with several addresses
      expectUnavailable(new Error('loading the agent failed', { cause: viaKnex }));
      expectUnavailable(new AggregateError([direct, viaKnex], 'connect ECONNREFUSED'));
    } finally {
      await db.destroy();
    }
  });

  it('a server that closes every connection: "Connection terminated unexpectedly"', async () => {
    const server = await tcpServer((socket) => socket.destroy());
    const db = knex({ client: 'pg', connection: server.url, pool: { min: 0, max: 1 }, acquireConnectionTimeout: 2000, log: QUIET });
    try {
      const error = await rejectionOf(db.raw('select 1'));
      expect((error as Error).message).toMatch(/Connection terminated/);
      expectUnavailable(error);
    } finally {
      await db.destroy();
      await server.close();
    }
  });

  it('a server that never answers, through the platform adapter: the connect times out before the wait does', async () => {
    const server = await tcpServer(() => undefined);
    const db = await openDatabase({ url: server.url, queueTimeoutMs: 600, poolMax: 2 });
    try {
      const started = Date.now();
      // Three statements for a pool of two: one waits behind the connects and times out with their failure.
      const errors = await Promise.all([1, 2, 3].map(() => rejectionOf(db.knex.raw('select 1'))));
      expect(Date.now() - started).toBeLessThan(5000);
      // the two that got a connect of their own fail with it; the third with knex's timeout of its wait
      expect(errors.map((e) => (e as Error).name).sort()).toEqual(['Error', 'Error', 'KnexTimeoutError']);
      for (const error of errors) expectUnavailable(error);
    } finally {
      await server.close();
      await db.close();
    }
  });

  it('is false for what is not an error of the connection', () => {
    for (const value of [null, undefined, 'ECONNREFUSED', 42, {}, new Error('boom'), new TypeError('x is undefined')]) {
      expect(isDatabaseUnavailable(value)).toBe(false);
    }
    // a cause chain that loops ends
    const loop = new Error('loop') as Error & { cause?: unknown };
    loop.cause = loop;
    expect(isDatabaseUnavailable(loop)).toBe(false);
  });
});

describeWithPostgres('isDatabaseUnavailable on the real Postgres server', () => {
  let scratch: ScratchDatabase;
  let db: Knex;
  const terminate = (pid: number) => admin((c) => c.query('SELECT pg_terminate_backend($1)', [pid]));
  const backendPid = async (conn: Knex | Knex.Transaction = db) =>
    ((await conn.raw('select pg_backend_pid() as pid')) as { rows: { pid: number }[] }).rows[0]!.pid;

  beforeAll(async () => {
    scratch = await createScratchDatabase('db_errors');
    db = knex({ client: 'pg', connection: scratch.url, pool: { min: 0, max: 1 }, log: QUIET });
  });
  afterAll(async () => {
    await db?.destroy();
    await scratch?.drop();
  });

  it('a backend terminated during a statement (57P01), and the statement after it on the broken connection', async () => {
    const pid = await backendPid();
    const sleeping = rejectionOf(db.raw('select pg_sleep(5)'));
    await new Promise((r) => setTimeout(r, 300));
    await terminate(pid);
    const during = await sleeping;
    expect(during).toMatchObject({ code: '57P01' });
    expectUnavailable(during);
    // The pool may hand the dying connection out once more; if it does, that statement fails at connection level.
    const next = await db.raw('select 1 as one').then(
      () => null,
      (e: unknown) => e,
    );
    if (next) expectUnavailable(next);
    // and the pool then recovers by itself
    await expect(db.raw('select 1 as one')).resolves.toMatchObject({ rows: [{ one: 1 }] });
  });

  it('a transaction whose backend was terminated, and a client used after its backend was terminated', async () => {
    const inTransaction = await rejectionOf(
      db.transaction(async (trx) => {
        await terminate(await backendPid(trx));
        await new Promise((r) => setTimeout(r, 200));
        await trx.raw('select 1');
      }),
    );
    expectUnavailable(inTransaction);

    const client = new pg.Client({ connectionString: scratch.url });
    const events: unknown[] = [];
    client.on('error', (e) => events.push(e));
    await client.connect();
    const { rows } = await client.query<{ pid: number }>('select pg_backend_pid() as pid');
    await terminate(rows[0]!.pid);
    await new Promise((r) => setTimeout(r, 300));
    const after = await rejectionOf(client.query('select 1'));
    expect((after as Error).message).toMatch(/not queryable/);
    expectUnavailable(after);
    expect(events.length).toBeGreaterThan(0);
    for (const e of events) expectUnavailable(e);
  });

  it('is false for refusals of a database that answers, and a full pool of a reachable database is DATABASE_BUSY', async () => {
    const syntax = await rejectionOf(db.raw('selec 1'));
    expect(syntax).toMatchObject({ code: '42601' });
    expect(isDatabaseUnavailable(syntax)).toBe(false);
    await db.raw('create table if not exists t (id int primary key)');
    await db.raw('insert into t values (1) on conflict do nothing');
    const duplicate = await rejectionOf(db.raw('insert into t values (1)'));
    expect(duplicate).toMatchObject({ code: '23505' });
    expect(isDatabaseUnavailable(duplicate)).toBe(false);

    const full = await openDatabase({ url: scratch.url, poolMax: 1, queueTimeoutMs: 300 });
    try {
      const holding = full.knex.raw('select pg_sleep(1)').then(() => undefined); // a builder runs once awaited
      const timedOut = await rejectionOf(full.knex.raw('select 1'));
      await holding;
      expect(timedOut).toMatchObject({ name: 'KnexTimeoutError' });
      expect(isDatabaseUnavailable(timedOut)).toBe(false);
      expect(toHttpError(timedOut)).toMatchObject({ status: 503, body: { code: 'DATABASE_BUSY' } });
    } finally {
      await full.close();
    }
  });
});
