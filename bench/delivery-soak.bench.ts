/**
 * Delivery soak (docs/contracts.md "Delivery guarantees"): 2,100 ingestion jobs across 3 organizations on the fault stack
 * (test/support/fault-stack.ts: gateway, api and 2 worker processes on a scratch Postgres database, Redis, and
 * RabbitMQ behind a TCP proxy; JOB_LEASE_SECONDS=3), twice in this run, each on a fresh stack:
 *   - baseline: no faults;
 *   - faults: a worker SIGKILLed every few seconds (the two in turn, each once it holds a job and has been up 3 s,
 *     never while the other is down: every 5 s at most, or as soon as the last one killed is back; restarted 1.5 s
 *     after it died) and the broker cut once for 4 s (every role loses its connections) when 40% are done.
 * Uploads go through the gateway, three at a time (one uploader per organization), held back while more than
 * BENCH_SOAK_BACKLOG documents are unfinished (a producer with backpressure: the drain time measures throughput,
 * not how long a backlog waits). After each drain, SQL on the stack's database (test/support/delivery-invariants):
 * lost, stuck, duplicated and double-billed counts must all be 0, or the bench exits 1.
 *
 *   npx tsx bench/run.ts delivery-soak     writes bench/results/delivery-soak.json
 *   BENCH_SOAK_DOCUMENTS=2100              documents (spread over the three organizations)
 *   BENCH_SOAK_KILL_EVERY_MS=5000          least time between kills
 *   BENCH_SOAK_BACKLOG=12                  unfinished documents the uploaders allow
 */
import { mkdir, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';

import {
  checkInvariants,
  createTenants,
  type InvariantReport,
  type Kill,
  killWhileBusy,
  manualText,
  mustBeZero,
  unfinished,
  type Upload,
  uploadText,
  violations,
  waitForDrain,
} from '../test/support/delivery-invariants';
import { type FaultStack, startFaultStack } from '../test/support/fault-stack';

const DOCUMENTS = Number(process.env.BENCH_SOAK_DOCUMENTS ?? 2100);
const ORGANIZATIONS = 3;
const WORKERS = 2;
const LEASE_SECONDS = 3;
const KILL_EVERY_MS = Number(process.env.BENCH_SOAK_KILL_EVERY_MS ?? 5000);
const RESTART_AFTER_MS = 1500;
/** A worker is killed only once it has been consuming this long. */
const MIN_UP_MS = 3000;
const OUTAGE_MS = 4000;
const OUTAGE_AT_SHARE = 0.4;
const BACKLOG = Number(process.env.BENCH_SOAK_BACKLOG ?? 12);
const DRAIN_TIMEOUT_MS = 10 * 60_000;
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Faults {
  kills: Kill[];
  /** How long each restarted worker took from spawn to consuming. */
  restartMs: number[];
  /** Starts that failed (the process exited while booting), by their error. */
  failedStarts: string[];
  outage: { atMs: number; ms: number } | null;
}

/**
 * Kills a worker every KILL_EVERY_MS (the workers in turn), never while another is down or booting, and only one
 * that has been up MIN_UP_MS (it has taken work); cuts the broker once; until `done()`.
 */
async function injectFaults(stack: FaultStack, started: number, done: () => boolean, completed: () => number): Promise<Faults> {
  const faults: Faults = { kills: [], restartMs: [], failedStarts: [], outage: null };
  const restarts: Promise<void>[] = [];
  let next = 0;
  let nextKillAt = Date.now() + KILL_EVERY_MS;
  const allUp = () => Array.from({ length: stack.workerCount }, (_, i) => stack.workerReadySince(i)).every((t) => t !== null);
  while (!done()) {
    await sleep(100);
    if (!faults.outage && completed() >= DOCUMENTS * OUTAGE_AT_SHARE) {
      const atMs = Date.now() - started;
      await stack.cutBroker();
      await sleep(OUTAGE_MS);
      await stack.restoreBroker();
      faults.outage = { atMs, ms: OUTAGE_MS };
      nextKillAt = Math.max(nextKillAt, Date.now() + KILL_EVERY_MS / 2);
    }
    const upSince = stack.workerReadySince(next);
    if (Date.now() < nextKillAt || !allUp() || upSince === null || Date.now() - upSince < MIN_UP_MS) continue;
    const victim = next;
    next = (next + 1) % stack.workerCount;
    nextKillAt = Date.now() + KILL_EVERY_MS;
    // Restarted as a supervisor would, a moment after it died, and again while it fails to boot (a worker that
    // starts while the broker is away exits 1: its first event-bus subscription fails).
    const restart = () =>
      restarts.push(
        (async () => {
          for (let attempt = 0; attempt < 30; attempt++) {
            await sleep(RESTART_AFTER_MS);
            try {
              faults.restartMs.push(await stack.startWorker(victim));
              return;
            } catch (error) {
              faults.failedStarts.push(String(error).split('\n')[0]!.slice(0, 200));
            }
          }
        })(),
      );
    faults.kills.push(await killWhileBusy(stack, victim, { minLeased: 1, waitMs: 3000, afterKill: restart }));
  }
  await Promise.all(restarts);
  return faults;
}

async function soak(withFaults: boolean) {
  const stack = await startFaultStack({ workers: WORKERS, leaseSeconds: LEASE_SECONDS });
  try {
    const tenants = await createTenants(stack.gatewayUrl, ORGANIZATIONS, withFaults ? 'soak-faults' : 'soak-baseline');
    const uploads: Upload[] = [];
    // The chunk tables of the embedding size are created by the first document (not measured).
    uploads.push(await uploadText(stack.gatewayUrl, tenants[0]!, 'warm-up.txt', manualText(-1)));
    if (!(await waitForDrain(stack.db, 60_000))) throw new Error('the warm-up document never finished');

    let open = 0;
    let completed = 0;
    let uploading = true;
    const poll = setInterval(() => {
      void unfinished(stack.db).then(
        (n) => (open = n.documents),
        () => undefined,
      );
      void stack.db.query("select count(*)::int as n from knowledge_documents where processing_status = 'completed'").then(
        (r) => (completed = r.rows[0].n),
        () => undefined,
      );
    }, 200);
    const cpu0 = stack.cpuSeconds();
    const started = Date.now();
    const uploaders = Promise.all(
      tenants.map(async (tenant, k) => {
        for (let i = k; i < DOCUMENTS; i += tenants.length) {
          while (open >= BACKLOG) await sleep(50);
          open++;
          uploads.push(await uploadText(stack.gatewayUrl, tenant, `manual-${i}.txt`, manualText(i)));
        }
      }),
    ).finally(() => (uploading = false));
    let drained = false;
    const faults = withFaults
      ? injectFaults(
          stack,
          started,
          () => !uploading && open === 0,
          () => completed,
        )
      : null;
    await uploaders;
    const uploadedMs = Date.now() - started;
    drained = await waitForDrain(stack.db, DRAIN_TIMEOUT_MS);
    const drainMs = Date.now() - started;
    clearInterval(poll);
    open = 0;
    const injected = await faults;
    // A fault-free moment after the drain: no late redelivery may change anything.
    await sleep(2 * LEASE_SECONDS * 1000);
    const report: InvariantReport = await checkInvariants(stack.db, uploads);
    const cpu = stack.cpuSeconds();
    const resent = stack
      .logLines('sweeper: ')
      .reduce((n, line) => n + Number(/sweeper: (\d+) job\(s\) dispatched again/.exec(line)?.[1] ?? 0), 0);
    const held = injected?.kills.flatMap((k) => k.orphaned) ?? [];
    const { rows: heldAttempts } = await stack.db.query('select attempts from jobs where id = any($1)', [held]);
    return {
      faults: withFaults,
      drained,
      drainMs,
      uploadMs: uploadedMs,
      documentsPerSecond: +((DOCUMENTS / drainMs) * 1000).toFixed(2),
      invariants: mustBeZero(report),
      violations: violations(report),
      accepted: report.accepted,
      refused: report.refused,
      completed: report.completed,
      failed: report.failed,
      failedReasons: report.failedReasons,
      chunkRows: report.chunkRows,
      jobsClaimedMoreThanOnce: report.reclaimedJobs,
      mostClaimsOfOneJob: report.maxAttempts,
      messagesResentBySweeper: resent,
      ...(injected
        ? {
            kills: injected.kills.length,
            killsWithWorkInHand: injected.kills.filter((k) => k.orphaned.length > 0).length,
            jobsHeldByKilledWorkers: held.length,
            heldJobsClaimedAgain: heldAttempts.filter((r: { attempts: number }) => r.attempts >= 2).length,
            workerRestartMs: {
              median: [...injected.restartMs].sort((a, b) => a - b)[injected.restartMs.length >> 1] ?? null,
              max: Math.max(0, ...injected.restartMs),
            },
            failedWorkerStarts: injected.failedStarts.length,
            failedWorkerStartReasons: [...new Set(injected.failedStarts)],
            brokerOutage: injected.outage,
          }
        : {}),
      cpuSeconds: Object.fromEntries(Object.entries(cpu).map(([k, v]) => [k, +(v - (cpu0[k] ?? 0)).toFixed(1)])),
    };
  } finally {
    await stack.close();
  }
}

async function main() {
  const loadAtStart = os.loadavg().map((l) => +l.toFixed(2));
  const baseline = await soak(false);
  process.stdout.write(`baseline ${JSON.stringify(baseline)}\n`);
  const faults = await soak(true);
  process.stdout.write(`faults ${JSON.stringify(faults)}\n`);
  const bad = [baseline, faults].filter((r) => !r.drained || Object.keys(r.violations).length > 0);
  const result = {
    date: new Date().toISOString(),
    node: process.version,
    cpus: os.cpus().length,
    loadAverage: { atStart: loadAtStart, atEnd: os.loadavg().map((l) => +l.toFixed(2)) },
    setup: {
      documents: DOCUMENTS,
      organizations: ORGANIZATIONS,
      workers: WORKERS,
      jobLeaseSeconds: LEASE_SECONDS,
      killEveryMs: KILL_EVERY_MS,
      restartAfterMs: RESTART_AFTER_MS,
      brokerOutageMs: OUTAGE_MS,
      uploadBacklog: BACKLOG,
    },
    target: 'lost, stuck, duplicated and double-billed all 0, with and without faults',
    note: 'Baseline and faults each on a fresh stack, one after another in this run; the ratio compares their drain times (first upload to every document and job terminal).',
    baseline,
    faults,
    drainRatio: +(faults.drainMs / baseline.drainMs).toFixed(2),
    ok: bad.length === 0,
  };
  process.stdout.write(
    `delivery soak: ${DOCUMENTS} documents; drain ${(baseline.drainMs / 1000).toFixed(1)} s without faults, ` +
      `${(faults.drainMs / 1000).toFixed(1)} s with ${faults.kills} kills and a ${OUTAGE_MS / 1000} s broker outage ` +
      `(x${result.drainRatio}); faults run: lost ${faults.invariants.lost}, stuck ${faults.invariants.stuck}, ` +
      `duplicated ${faults.invariants.duplicated}, double-billed ${faults.invariants.doubleBilled}, failed ${faults.failed}, ` +
      `claimed more than once ${faults.jobsClaimedMoreThanOnce}\n`,
  );
  await mkdir(path.join(__dirname, 'results'), { recursive: true });
  await writeFile(path.join(__dirname, 'results', 'delivery-soak.json'), `${JSON.stringify(result, null, 2)}\n`);
  if (bad.length) {
    process.stderr.write(
      `delivery soak: invariants broken: ${JSON.stringify(bad.map((r) => ({ faults: r.faults, drained: r.drained, ...r.violations })))}\n`,
    );
    process.exit(1);
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
