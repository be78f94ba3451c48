/**
 * docs/contracts.md "Delivery guarantees" under faults, in the production shape (test/support/fault-stack.ts: gateway,
 * api and two worker processes on a scratch Postgres database, Redis, RabbitMQ behind a proxy of this test,
 * JOB_LEASE_SECONDS=3). Three organizations upload 60 small documents through the gateway in three waves; while
 * they ingest, a worker is SIGKILLed (and restarted) twice, each time once both workers hold jobs, and the broker
 * is cut for 3 s once. After the drain, SQL on the stack's database: every accepted upload has exactly one
 * document, completed, billed once, with as many chunk rows as its chunk_count; nothing is left pending,
 * processing, queued or running; and the jobs the killed workers held were claimed again.
 */
import { pgvectorOnServer } from '../support/databases';
import {
  checkInvariants,
  createTenants,
  type Kill,
  killWhileBusy,
  manualText,
  type Tenant,
  type Upload,
  uploadText,
  violations,
  waitForDrain,
} from '../support/delivery-invariants';
import { type FaultStack, startFaultStack } from '../support/fault-stack';

const maybe = pgvectorOnServer ? describe : describe.skip;
const WAVE = 20;
const STACK_TIMEOUT_MS = 120_000;

maybe('workers SIGKILLed and the broker cut while documents ingest', () => {
  let stack: FaultStack;
  let tenants: Tenant[];
  const uploads: Upload[] = [];

  beforeAll(async () => {
    stack = await startFaultStack({ workers: 2, leaseSeconds: 3 });
    tenants = await createTenants(stack.gatewayUrl, 3, 'killed');
    // One document first: it creates the chunk tables of the embedding size, so the measured uploads do not
    // meet the first-write race of two workers creating them (a deadlock, retried; see the README).
    uploads.push(await uploadText(stack.gatewayUrl, tenants[0]!, 'warm-up.txt', manualText(-1)));
    if (!(await waitForDrain(stack.db, 60_000))) throw new Error('the warm-up document never finished');
  }, STACK_TIMEOUT_MS);
  afterAll(() => stack?.close(), STACK_TIMEOUT_MS);

  /** `WAVE` documents, spread over the three organizations, three uploads at a time. */
  const wave = (from: number) =>
    Promise.all(
      tenants.map(async (tenant, k) => {
        for (let i = from + k; i < from + WAVE; i += tenants.length)
          uploads.push(await uploadText(stack.gatewayUrl, tenant, `manual-${i}.txt`, manualText(i)));
      }),
    );

  it('loses none, leaves none open, bills each once, and claims the killed workers jobs again', async () => {
    const started = Date.now();
    const kills: Kill[] = [];
    // Wave 1, then worker 0 killed once three jobs are leased (each worker holds at most two: both are busy).
    const first = wave(0);
    kills.push(await killWhileBusy(stack, 0, { minLeased: 3 }));
    await first;
    await stack.startWorker(0);
    const second = wave(WAVE);
    kills.push(await killWhileBusy(stack, 1, { minLeased: 3 }));
    await second;
    await stack.startWorker(1);
    // Wave 3 with the broker cut for 3 s while it uploads and ingests (every role loses its connections).
    const third = wave(2 * WAVE);
    await new Promise((r) => setTimeout(r, 500));
    await stack.cutBroker();
    await new Promise((r) => setTimeout(r, 3_000));
    await stack.restoreBroker();
    await third;

    const drained = await waitForDrain(stack.db, 90_000);
    const report = await checkInvariants(stack.db, uploads);
    const orphaned = kills.flatMap((k) => k.orphaned);
    const { rows: reclaimed } = await stack.db.query('select id, attempts from jobs where id = any($1)', [orphaned]);
    console.log(
      `Workers killed: ${uploads.length} uploads in ${((Date.now() - started) / 1000).toFixed(1)} s, ` +
        `kills ${JSON.stringify(kills.map(({ worker, leasedAtKill, orphaned: o }) => ({ worker, leasedAtKill, held: o.length })))}; ` +
        JSON.stringify(report),
    );

    expect(drained).toBe(true);
    expect(report.refused).toEqual({}); // accepted while the broker was away too (the outbox)
    expect(violations(report)).toEqual({});
    expect(report.accepted).toBe(3 * WAVE + 1);
    expect(report.completed).toBe(report.accepted);
    expect(report.unacknowledgedDocuments).toBe(0);
    // The kills landed mid-work: jobs the dead workers held were claimed again by another process. (`orphaned`
    // reads leases a live worker did not renew within half a lease: on a loaded machine a live worker's late
    // renewal can pass for one, so not every one of them must have been claimed again.)
    expect(orphaned.length).toBeGreaterThan(0);
    expect((reclaimed as { attempts: number }[]).filter((job) => job.attempts >= 2).length).toBeGreaterThan(0);
    expect(report.reclaimedJobs).toBeGreaterThan(0);
    // The cut reached the workers' consumers (they resumed on new channels) and the api's sends.
    expect(stack.logLines('lost its channel').length).toBeGreaterThan(0);
  }, 150_000);
});
