import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';

import pg from 'pg';

import { RabbitMqJobQueue } from '../../adapters/rabbitmq/rabbitmq.job-queue';
import { AMQP_URL, deleteTopology, quietLogger, uniquePrefix } from '../../adapters/rabbitmq/test-fixtures/broker';
import { createScratchDatabase, describeWithRealServices, type ScratchDatabase } from '../support/databases';

/**
 * Workers killed (issue 8): 10,000 jobs on RabbitMQ, consumed by worker processes that are SIGKILLed again and
 * again while they work. At-least-once delivery brings back every job in hand; the idempotent step (effect row
 * and ledger increment in one transaction keyed by job id) makes a redelivery change nothing. Result: no job
 * lost, none applied twice, and the deliveries log shows the redeliveries really happened.
 */
const JOBS = 10_000;
const WORKERS = 4;
/** A worker is killed once it has been consuming this long (so each kill lands while jobs are in hand). */
const KILL_AFTER_READY_MS = 3000;

describeWithRealServices('workers killed with SIGKILL while processing 10,000 jobs', () => {
  const prefix = uniquePrefix('killed-suite');
  const queueName = 'idempotent';
  let scratch: ScratchDatabase;
  let db: pg.Pool;
  let queue: RabbitMqJobQueue;
  const workers = new Set<ChildProcess>();
  const readyAt = new Map<ChildProcess, number>();

  beforeAll(async () => {
    scratch = await createScratchDatabase('workers_killed');
    db = new pg.Pool({ connectionString: scratch.url, max: 4 });
    await db.query('CREATE TABLE effects (job_id text PRIMARY KEY, n int NOT NULL)');
    await db.query('CREATE TABLE deliveries (job_id text NOT NULL, pid int NOT NULL, attempt int NOT NULL)');
    await db.query('CREATE TABLE ledger (total bigint NOT NULL, applied int NOT NULL)');
    await db.query('INSERT INTO ledger VALUES (0, 0)');
    queue = new RabbitMqJobQueue({ url: AMQP_URL, prefix }, { logger: quietLogger });
  }, 60_000);

  afterAll(async () => {
    for (const w of workers) w.kill('SIGKILL');
    await queue?.close();
    await deleteTopology(queue?.declaredQueues ?? []);
    await db?.end();
    await scratch?.drop();
  }, 60_000);

  function startWorker(): ChildProcess {
    const child = spawn(
      process.execPath,
      ['-r', 'tsx/cjs', join(__dirname, 'workers', 'idempotent-worker.ts'), AMQP_URL, prefix, queueName, scratch.url],
      { cwd: join(__dirname, '..', '..'), env: { ...process.env, NODE_OPTIONS: '' }, stdio: ['ignore', 'ignore', 'ignore', 'ipc'] },
    );
    workers.add(child);
    child.on('message', (m) => {
      if (m === 'ready') readyAt.set(child, Date.now());
    });
    child.once('exit', () => {
      workers.delete(child);
      readyAt.delete(child);
    });
    return child;
  }

  const count = async (sql: string) => Number((await db.query(sql)).rows[0].n);

  it('loses none and applies none twice', async () => {
    // Enqueued in batches with publisher confirms: every job is on the broker before the first kill.
    for (let i = 0; i < JOBS; i += 500) {
      await Promise.all(
        Array.from({ length: Math.min(500, JOBS - i) }, (_, k) => queue.enqueue(queueName, { n: 1 }, { jobId: `job-${i + k}` })),
      );
    }
    for (let i = 0; i < WORKERS; i++) startWorker();
    let kills = 0;
    const deadline = Date.now() + 240_000; // a ceiling for a loaded machine, not a timing assertion
    while ((await count('SELECT count(*) AS n FROM effects')) < JOBS) {
      if (Date.now() > deadline) throw new Error(`stuck at ${await count('SELECT count(*) AS n FROM effects')} effects`);
      await new Promise((r) => setTimeout(r, 250));
      const busy = [...readyAt].filter(([, at]) => Date.now() - at >= KILL_AFTER_READY_MS).map(([w]) => w);
      const victim = busy[Math.floor(Math.random() * busy.length)];
      if (victim && (await count('SELECT count(*) AS n FROM effects')) < JOBS) {
        victim.kill('SIGKILL');
        readyAt.delete(victim);
        kills++;
      }
      while (workers.size < WORKERS) startWorker();
    }
    // Let in-flight redeliveries land: they must not change the effect.
    await new Promise((r) => setTimeout(r, 2000));
    for (const w of workers) w.kill('SIGKILL');

    const effects = await count('SELECT count(*) AS n FROM effects');
    const ledger = (await db.query('SELECT total, applied FROM ledger')).rows[0] as { total: string; applied: number };
    const deliveries = await count('SELECT count(*) AS n FROM deliveries');
    const redelivered = await count('SELECT count(DISTINCT job_id) AS n FROM deliveries WHERE attempt > 1');
    const processes = await count('SELECT count(DISTINCT pid) AS n FROM deliveries');
    console.log(
      `Workers killed: ${JOBS} jobs, ${kills} SIGKILLs over ${processes} worker processes; ${effects} effects, ledger ${ledger.total}; ` +
        `${deliveries} committed deliveries, ${redelivered} jobs redelivered; dead letters ${(await queue.deadLetters(queueName)).length}`,
    );
    expect(effects).toBe(JOBS); // none lost
    expect(Number(ledger.total)).toBe(JOBS); // none applied twice
    expect(ledger.applied).toBe(JOBS);
    expect(kills).toBeGreaterThanOrEqual(3);
    expect(await queue.deadLetters(queueName)).toEqual([]);
  }, 300_000);
});
