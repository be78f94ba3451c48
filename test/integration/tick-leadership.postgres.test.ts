/**
 * Tick leadership on the real Postgres server: the conformance suite with two workers' pools, then what only a
 * server has: the lock lives on a session of its own, so a pool of one still serves the work, and a holder whose
 * connection dies (terminated, or its process killed) frees the tick for the others at once.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

import { AdvisoryLockTickLeadership, TICK_LOCK_APPLICATION } from '../../adapters/postgres/advisory.tick-leadership';
import { type Database, openDatabase } from '../../adapters/postgres/database';
import { createAdaptersContainer } from '../../app/adapters-container';
import { loadConfig } from '../../app/configuration';
import { TICK_LEADERSHIP, type TickLeadership } from '../../core/ports/tick-leadership';
import { tickLeadershipConformance } from '../conformance/tick-leadership.conformance';
import { createScratchDatabase, describeWithRealServices, type ScratchDatabase } from '../support/databases';
import { admin } from '../support/scratch-database';

const ROOT = path.resolve(__dirname, '..', '..');

describeWithRealServices('Postgres server (TEST_REAL_SERVICES=1)', () => {
  let scratch: ScratchDatabase;
  const pools: Database[] = [];
  const open = async (poolMax?: number) => {
    const db = await openDatabase({ url: scratch.url, poolMax });
    pools.push(db);
    return db;
  };
  beforeAll(async () => {
    scratch = await createScratchDatabase('tick_leadership');
  });
  afterAll(async () => {
    for (const db of pools) await db.close();
    await scratch?.drop();
  });

  tickLeadershipConformance('Postgres advisory locks', async () => ({
    first: new AdvisoryLockTickLeadership((await open()).knex),
    second: new AdvisoryLockTickLeadership((await open()).knex),
  }));

  /** Lock sessions of the scratch database holding (or asking for) tick `name`. */
  const lockSessions = (name: string) =>
    admin(async (c) => {
      const { rows } = await c.query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = $1 AND application_name = $2', [
        scratch.name,
        `${TICK_LOCK_APPLICATION}: ${name}`,
      ]);
      return rows.map((r) => r.pid);
    });

  it('is what the composition root binds on a Postgres server (the embedded store leads in process)', async () => {
    const leadershipOn = async (db: Database, env: Record<string, string>) =>
      createAdaptersContainer(
        loadConfig('migrate', { LOG_LEVEL: 'silent', ...env }),
        { dataDir: '.', log: () => undefined, db },
        [],
      ).get<TickLeadership>(TICK_LEADERSHIP);
    expect((await leadershipOn(await open(), { DATABASE_URL: scratch.url })).id).toBe('postgres-advisory-lock');
    const embedded = await openDatabase({ memory: true });
    try {
      expect((await leadershipOn(embedded, {})).id).toBe('in-process');
    } finally {
      await embedded.close();
    }
  });

  it('holds the lock on a session of its own: with a pool of one connection the work still gets it', async () => {
    const db = await open(1);
    const leadership = new AdvisoryLockTickLeadership(db.knex);
    const outcome = await leadership.runExclusive('test.pool-of-one', async () => {
      const { rows } = await db.knex.raw('SELECT 1 AS one');
      return rows[0].one as number;
    });
    expect(outcome).toEqual({ ran: true, value: 1 });
    // The session ended with the tick.
    expect(await lockSessions('test.pool-of-one')).toEqual([]);
  });

  it('frees the tick when the holder’s connection dies, while its work is still running', async () => {
    const warnings: string[] = [];
    const holder = new AdvisoryLockTickLeadership((await open()).knex, (_level, message) => warnings.push(message));
    const other = new AdvisoryLockTickLeadership((await open()).knex);
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    let entered!: () => void;
    const inside = new Promise<void>((resolve) => (entered = resolve));
    const holding = holder.runExclusive('test.dies', async () => {
      entered();
      await released;
      return 'finished anyway';
    });
    await inside;
    expect(await other.runExclusive('test.dies', async () => 'other')).toEqual({ ran: false });

    const [pid] = await lockSessions('test.dies');
    expect(pid).toBeDefined();
    await admin((c) => c.query('SELECT pg_terminate_backend($1)', [pid]));
    // The server freed the lock with the session: the other worker takes the tick although the holder's work goes on.
    let taken: Awaited<ReturnType<typeof other.runExclusive<string>>> = { ran: false };
    for (let i = 0; i < 50 && !taken.ran; i++) {
      taken = await other.runExclusive('test.dies', async () => 'other');
      if (!taken.ran) await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(taken).toEqual({ ran: true, value: 'other' });
    release();
    // The lost session is reported, not thrown at the process; the work's value still comes back.
    expect(await holding).toEqual({ ran: true, value: 'finished anyway' });
    expect(warnings.join('\n')).toContain('lock session was lost');
  });

  it('frees the tick when the holding process is killed (SIGKILL)', async () => {
    const script = `
      const { AdvisoryLockTickLeadership } = require(${JSON.stringify(path.join(ROOT, 'adapters/postgres/advisory.tick-leadership.ts'))});
      const { openDatabase } = require(${JSON.stringify(path.join(ROOT, 'adapters/postgres/database.ts'))});
      openDatabase({ url: process.argv[1] }).then((db) =>
        new AdvisoryLockTickLeadership(db.knex).runExclusive('test.killed', () => {
          process.stdout.write('holding\\n');
          return new Promise(() => {});
        }));`;
    const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', '-e', script, scratch.url], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('holding') && resolve());
        child.once('exit', (code) => reject(new Error(`the holder exited with ${code} before holding the lock`)));
      });
      const other = new AdvisoryLockTickLeadership((await open()).knex);
      expect(await other.runExclusive('test.killed', async () => 'other')).toEqual({ ran: false });
      child.kill('SIGKILL');
      await exited;
      let taken: Awaited<ReturnType<typeof other.runExclusive<string>>> = { ran: false };
      for (let i = 0; i < 50 && !taken.ran; i++) {
        taken = await other.runExclusive('test.killed', async () => 'other');
        if (!taken.ran) await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(taken).toEqual({ ran: true, value: 'other' });
    } finally {
      child.kill('SIGKILL');
    }
  });
});
