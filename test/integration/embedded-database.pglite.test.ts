import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { toHttpError } from '../../adapters/http/error-mapper';
import { type Database, openDatabase } from '../../adapters/postgres/database';

/** Inodes of the listening TCP sockets (IPv4 and IPv6) this process holds open. */
function listeningSocketsOfThisProcess(): Set<string> {
  const listening = new Set<string>();
  for (const file of ['/proc/net/tcp', '/proc/net/tcp6']) {
    for (const line of readFileSync(file, 'utf8').split('\n').slice(1)) {
      const cols = line.trim().split(/\s+/);
      if (cols[3] === '0A') listening.add(cols[9]); // state LISTEN, inode
    }
  }
  const mine = new Set<string>();
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed between readdir and readlink
    }
    const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
    if (inode && listening.has(inode)) mine.add(inode);
  }
  return mine;
}

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? filesUnder(join(dir, e.name)) : [join(dir, e.name)]));
}

describe('embedded database (PGlite in a worker thread)', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'embedded-db-'));
  let before: Set<string>;
  let db: Database;

  beforeAll(async () => {
    before = listeningSocketsOfThisProcess();
    // A generous wait here: on a loaded CI machine 30 queued statements may take longer than a short
    // timeout; the busy case below opens its own database with a short one.
    db = await openDatabase({ dataDir, queueTimeoutMs: 15_000, poolMax: 3 });
    await db.knex.raw('create table if not exists probe (id int primary key, note text)');
  }, 120_000);
  afterAll(async () => {
    await db?.close();
    rmSync(dataDir, { recursive: true, force: true });
  });

  it('opens no listening TCP port and no socket file: another process has nothing to connect to', async () => {
    await db.knex('probe').insert({ id: 1, note: 'secret' });
    const opened = [...listeningSocketsOfThisProcess()].filter((inode) => !before.has(inode));
    expect(opened).toEqual([]);
    const sockets = filesUnder(dataDir).filter((f) => statSync(f).isSocket());
    expect(sockets).toEqual([]);
    // The files themselves are the owner's only.
    expect(statSync(join(dataDir, 'pglite')).mode & 0o077).toBe(0);
  });

  it('serves concurrent statements and transactions over the multiplexed connections', async () => {
    const values = await Promise.all(Array.from({ length: 30 }, (_, i) => db.knex.raw('select ?::int as v', [i])));
    expect(values.map((r) => r.rows[0].v)).toEqual(Array.from({ length: 30 }, (_, i) => i));
    // Two transactions at once: each sees only its own uncommitted row, one rolls back.
    await Promise.all([
      db.knex.transaction(async (trx) => {
        await trx('probe').insert({ id: 10, note: 'kept' });
        expect((await trx('probe').where({ id: 11 })).length).toBe(0);
      }),
      db.knex
        .transaction(async (trx) => {
          await trx('probe').insert({ id: 11, note: 'dropped' });
          throw new Error('roll back');
        })
        .catch(() => undefined),
    ]);
    const ids = (await db.knex('probe').whereIn('id', [10, 11]).pluck('id')) as number[];
    expect(ids).toEqual([10]);
  });

  it('rolls back the transaction of a connection that goes away mid-transaction', async () => {
    const conn = await db.knex.client.acquireRawConnection();
    await conn.query('begin');
    await conn.query("insert into probe values (30, 'orphan')");
    await db.knex.client.destroyRawConnection(conn);
    const rows = await db.knex('probe').where({ id: 30 });
    expect(rows).toEqual([]);
  });

  describe('with a short wait for a connection', () => {
    const busyDir = mkdtempSync(join(tmpdir(), 'embedded-db-busy-'));
    let busyDb: Database;
    beforeAll(async () => {
      busyDb = await openDatabase({ dataDir: busyDir, queueTimeoutMs: 400, poolMax: 3 });
      await busyDb.knex.raw('create table probe (id int primary key, note text)');
    }, 120_000);
    afterAll(async () => {
      await busyDb?.close();
      rmSync(busyDir, { recursive: true, force: true });
    });

    it('a held transaction makes others wait, then fail with a 503 (not 500), and the database recovers', async () => {
      let release!: () => void;
      const held = new Promise<void>((r) => (release = r));
      let started!: () => void;
      const inside = new Promise<void>((r) => (started = r));
      const holder = busyDb.knex.transaction(async (trx) => {
        await trx('probe').insert({ id: 20, note: 'held' });
        started();
        await held;
      });
      await inside;
      const outcomes = await Promise.allSettled(Array.from({ length: 5 }, () => busyDb.knex('probe').count('* as n')));
      expect(outcomes.every((o) => o.status === 'rejected')).toBe(true);
      for (const o of outcomes) {
        const { status, body } = toHttpError((o as PromiseRejectedResult).reason);
        expect(status).toBe(503);
        expect(body).toMatchObject({ error: 'Service Unavailable', code: 'DATABASE_BUSY' });
      }
      release();
      await holder;
      const [{ n }] = (await busyDb.knex('probe').where({ id: 20 }).count('* as n')) as { n: number }[];
      expect(n).toBe(1);
    });
  });

  it('keeps the data across a reopen of the same folder', async () => {
    await db.close();
    db = await openDatabase({ dataDir, queueTimeoutMs: 15_000 });
    const notes = (await db.knex('probe').where({ id: 1 }).pluck('note')) as string[];
    expect(notes).toEqual(['secret']);
  }, 120_000);
});
