/**
 * Leases, the sweeper and exhaustion (core/jobs/job-leases.ts) on the real embedded store and the real in-process
 * queue: a job's row is the outbox of its message, a worker runs it only under a lease, a dead worker's job or a
 * lost message is sent again, attempts are counted on the row, and an ingestion whose every attempt was
 * interrupted ends failed with its partial chunks removed. A clock the test moves stands for time passing.
 */
import { randomUUID } from 'node:crypto';

import type { Actor } from '../../core/identity/actor';
import type { JobDispatch } from '../../core/jobs/job';
import { type LeaseDeps, leasedHandler, reviveStalledJobs } from '../../core/jobs/job-leases';
import { findDuplicateUpload, retryDocument, uploadDocument } from '../../core/knowledge/documents';
import { abandonIngestion, processIngestJob } from '../../core/knowledge/ingest-document';
import { defaultIngestionSteps } from '../../core/knowledge/ingestion-steps';
import { INGEST_QUEUE } from '../../core/knowledge/knowledge-deps';
import type { Job, JobQueue } from '../../core/ports/job-queue';
import { createJobsHarness, type JobsHarness, waitFor } from './jobs-harness';

let h: JobsHarness;
let org: string;
let owner: Actor;
let kbId: string;
let offsetMs = 0;
const clock = { now: () => new Date(Date.now() + offsetMs) };
const LEASE_MS = 60_000;
const sent: { queue: string; jobId?: string }[] = [];
let queueAway = false;
/** The harness's in-process queue, watched (and made to refuse while `queueAway`). */
let queue: JobQueue;
let deps: LeaseDeps;

beforeAll(async () => {
  h = await createJobsHarness();
  const inner = h.knowledge.queue;
  queue = {
    id: inner.id,
    durable: false,
    enqueue: async (name, payload, options) => {
      if (queueAway) throw new Error('connect ECONNREFUSED 127.0.0.1:5672');
      sent.push({ queue: name, jobId: options?.jobId });
      return options?.jobId ?? randomUUID();
    },
    consume: (name, handler, options) => inner.consume(name, handler, options),
    deadLetters: (name) => inner.deadLetters(name),
    close: () => inner.close(),
  };
  h.deps.queue = queue;
  h.deps.clock = clock;
  h.knowledge.deps.queue = queue;
  deps = {
    store: h.deps.store,
    clock,
    queue,
    log: () => undefined,
    leaseMs: LEASE_MS,
    isUnavailable: (e) => String(e).includes('ECONNREFUSED'),
  };
  ({ organizationId: org, owner } = await h.knowledge.newOrganization('leases'));
  kbId = (await h.knowledge.newKnowledgeBase(org)).id;
});
afterAll(() => h?.close());
beforeEach(() => {
  offsetMs = 0;
  queueAway = false;
  sent.length = 0;
});

const dispatch: JobDispatch = { queue: 'test.work', payload: { n: 1 } };
async function newJob() {
  const id = randomUUID();
  await h.tracker.start({ id, organizationId: org, kind: 'test_work', dispatch });
  await waitFor(() => sent.some((s) => s.jobId === id), 'the first send');
  return id;
}
const message = (id: string, attempt = 1): Job => ({ id, queue: dispatch.queue, payload: dispatch.payload, attempt });
const sweep = (options?: { orphaned?: boolean }) => reviveStalledJobs(deps, options);
const sentIds = () => sent.map((s) => s.jobId);

describe('job leases', () => {
  it('sends the message after the commit, and never when the transaction rolls back', async () => {
    const id = await newJob();
    expect(sentIds()).toEqual([id]);
    const rolledBack = randomUUID();
    await expect(
      h.deps.store.transaction(async () => {
        await h.tracker.start({ id: rolledBack, organizationId: org, kind: 'test_work', dispatch });
        throw new Error('the write failed');
      }),
    ).rejects.toThrow('the write failed');
    await new Promise((r) => setTimeout(r, 50));
    expect(sentIds()).toEqual([id]);
    expect(await h.deps.store.repos.jobs.find(rolledBack)).toBeNull();
  });

  it('runs a job under one lease at a time and counts attempts on the row across messages', async () => {
    const id = await newJob();
    const seen: number[] = [];
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const handler = leasedHandler(
      deps,
      async (job) => {
        seen.push(job.attempt);
        if (seen.length === 1) await held;
      },
      { maxAttempts: 3, onExhausted: async () => undefined },
    );
    const first = handler(message(id));
    await waitFor(() => seen.length === 1, 'the first run');
    await handler(message(id)); // a duplicate while the first runs: acknowledged without running
    expect(seen).toEqual([1]);
    release();
    await first;
    await handler(message(id, 1)); // a redelivery after the lease was released: the row's count goes on
    expect(seen).toEqual([1, 2]);
    await h.tracker.complete(id);
    await handler(message(id));
    expect(seen).toEqual([1, 2]);
  });

  it('sends again the job of a worker that died once its lease ran out, not before', async () => {
    const id = await newJob();
    sent.length = 0;
    const died = leasedHandler(deps, () => new Promise<void>(() => undefined), { maxAttempts: 3, onExhausted: async () => undefined });
    void died(message(id)); // never returns: the worker is gone with the job in hand
    await waitFor(
      async () => (await h.deps.store.repos.jobs.claim(id, clock.now().toISOString(), clock.now().toISOString())).state === 'busy',
      'the claim',
    );
    expect(await sweep()).toBe(0);
    offsetMs = LEASE_MS + 1_000;
    expect(await sweep()).toBeGreaterThanOrEqual(1);
    expect(sentIds()).toContain(id);
    // Sent again once: the next sweep leaves it alone for a lease.
    sent.length = 0;
    await sweep();
    expect(sentIds()).not.toContain(id);
    await h.tracker.complete(id);
  });

  it('sends a message the queue refused at commit once the queue is back, after a short grace', async () => {
    queueAway = true;
    const id = randomUUID();
    await h.tracker.start({ id, organizationId: org, kind: 'test_work', dispatch });
    await new Promise((r) => setTimeout(r, 50));
    queueAway = false;
    expect(await sweep()).toBe(0);
    offsetMs = 6_000;
    await sweep();
    expect(sentIds()).toContain(id);
    await h.tracker.complete(id);
  });

  it('at boot of a process whose queue died with the last one, sends every unfinished job at once', async () => {
    const id = await newJob();
    const running = await h.deps.store.repos.jobs.claim(id, new Date(Date.now() + LEASE_MS).toISOString(), clock.now().toISOString());
    expect(running.state).toBe('claimed');
    sent.length = 0;
    await sweep({ orphaned: true });
    expect(sentIds()).toContain(id);
    await h.tracker.complete(id);
  });

  it('ends a job as interrupted once every attempt was interrupted, without running it again', async () => {
    const id = await newJob();
    const ended: string[] = [];
    let runs = 0;
    const handler = leasedHandler(
      deps,
      async () => {
        runs++;
      },
      { maxAttempts: 2, onExhausted: async (job, error) => void ended.push(`${job.id}:${error.code}`) },
    );
    for (let i = 0; i < 2; i++) await h.deps.store.repos.jobs.claim(id, clock.now().toISOString(), clock.now().toISOString());
    offsetMs = 1;
    await handler(message(id));
    expect(runs).toBe(0);
    expect(ended).toEqual([`${id}:interrupted`]);
  });

  it('acknowledges a run the database left (the sweeper takes it up), and rethrows other failures', async () => {
    const id = await newJob();
    const away = leasedHandler(
      deps,
      async () => {
        throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
      },
      { maxAttempts: 3, onExhausted: async () => undefined },
    );
    await expect(away(message(id))).resolves.toBeUndefined();
    const broken = leasedHandler(
      deps,
      async () => {
        throw new Error('a bug');
      },
      { maxAttempts: 3, onExhausted: async () => undefined },
    );
    await expect(broken(message(id))).rejects.toThrow('a bug');
    await h.tracker.complete(id);
  });

  it('on a durable queue, leaves a message that only waits in its backlog alone for ten leases', async () => {
    const id = await newJob();
    sent.length = 0;
    const broker = { ...deps, queue: { ...queue, durable: true } };
    offsetMs = LEASE_MS + 1_000;
    await reviveStalledJobs(broker);
    expect(sentIds()).not.toContain(id);
    offsetMs = 10 * LEASE_MS + 1_000;
    await reviveStalledJobs(broker);
    expect(sentIds()).toContain(id);
    await h.tracker.complete(id);
  });

  it('gives each stalled job to one of two concurrent sweepers', async () => {
    const ids: string[] = [];
    for (let i = 0; i < 6; i++) ids.push(await newJob());
    sent.length = 0;
    offsetMs = LEASE_MS + 1_000;
    await Promise.all([sweep(), sweep()]);
    const mine = sentIds().filter((s) => ids.includes(s!));
    expect(mine.sort()).toEqual([...ids].sort());
    for (const id of ids) await h.tracker.complete(id);
  });
});

describe('ingestion under leases', () => {
  const text = (label: string) => `${label}: the pump primes in four seconds and holds pressure for an hour. `.repeat(60);

  it('bills a document once when its job is delivered again after it completed', async () => {
    const up = await uploadDocument(h.knowledge.deps, owner, kbId, { filename: 'pump.txt', bytes: Buffer.from(text('pump')) });
    const job = { id: up.jobId, queue: INGEST_QUEUE, attempt: 1, payload: { organizationId: org, documentId: up.document.id } };
    expect(await processIngestJob(h.knowledge.deps, job)).toBe('completed');
    expect(await processIngestJob(h.knowledge.deps, { ...job, attempt: 2 })).toBe('skipped');
    const events = await h.deps.store.repos.billingEvents.listRecent(org, 1000);
    expect(events.filter((e) => e.kind === 'document_processing' && e.reference.documentId === up.document.id)).toHaveLength(1);
    expect((await h.deps.store.repos.jobs.find(up.jobId))!.status).toBe('completed');
  });

  it('bills nothing for a run that died between its charge and its completion (they commit together)', async () => {
    const up = await uploadDocument(h.knowledge.deps, owner, kbId, { filename: 'gauge.txt', bytes: Buffer.from(text('gauge')) });
    const job = { id: up.jobId, queue: INGEST_QUEUE, attempt: 1, payload: { organizationId: org, documentId: up.document.id } };
    const documents = h.deps.store.repos.documents;
    const transition = documents.transition.bind(documents);
    let cut = false;
    // The connection drops at the completing statement, once: the fault a killed worker or a database blip makes.
    documents.transition = async (...args: Parameters<typeof transition>) => {
      if (args[3] === 'completed' && !cut) {
        cut = true;
        throw new Error('Connection terminated unexpectedly');
      }
      return transition(...args);
    };
    try {
      await expect(processIngestJob(h.knowledge.deps, job)).rejects.toThrow('Connection terminated');
      expect(await processIngestJob(h.knowledge.deps, { ...job, attempt: 2 })).toBe('completed');
    } finally {
      documents.transition = transition;
    }
    const events = await h.deps.store.repos.billingEvents.listRecent(org, 1000);
    expect(events.filter((e) => e.kind === 'document_processing' && e.reference.documentId === up.document.id)).toHaveLength(1);
  });

  it('fails an ingestion interrupted on every attempt with the reason, removes its partial chunks, and lets it be retried', async () => {
    const up = await uploadDocument(h.knowledge.deps, owner, kbId, { filename: 'valve.txt', bytes: Buffer.from(text('valve')) });
    const job = { id: up.jobId, queue: INGEST_QUEUE, attempt: 1, payload: { organizationId: org, documentId: up.document.id } };
    // A run that wrote its chunks and then stopped for good (its worker died) before the document completed.
    const stopped = new Promise<void>(() => undefined);
    void processIngestJob(h.knowledge.deps, job, [
      ...defaultIngestionSteps.filter((s) => s.id !== 'summary'),
      { id: 'summary', run: () => stopped },
    ]);
    await waitFor(async () => (await h.knowledge.deps.vectorIndex.countByDocument(org, up.document.id)) > 0, 'the partial chunks');

    await abandonIngestion(h.knowledge.deps, job, { code: 'interrupted', message: 'Processing was interrupted 3 times', retryable: true });
    const doc = await h.deps.store.repos.documents.findById(org, up.document.id);
    expect(doc).toMatchObject({ processingStatus: 'failed', error: 'Processing was interrupted 3 times', chunkCount: 0 });
    expect(await h.knowledge.deps.vectorIndex.countByDocument(org, up.document.id)).toBe(0);
    expect((await h.deps.store.repos.jobs.find(up.jobId))!.error).toMatchObject({ code: 'interrupted', retryable: true });
    const retried = await retryDocument(h.knowledge.deps, owner, kbId, up.document.id);
    expect((await h.deps.store.repos.documents.findById(org, up.document.id))!.processingStatus).toBe('pending');
    expect((await h.deps.store.repos.jobs.find(retried.jobId))!.status).toBe('queued');
  });

  it('queues a re-upload of a document that failed for a reason outside the file instead of calling it a duplicate', async () => {
    const bytes = Buffer.from(text('hose'));
    const up = await uploadDocument(h.knowledge.deps, owner, kbId, { filename: 'hose.txt', bytes });
    const job = { id: up.jobId, queue: INGEST_QUEUE, attempt: 1, payload: { organizationId: org, documentId: up.document.id } };
    await abandonIngestion(h.knowledge.deps, job, { code: 'interrupted', message: 'Processing was interrupted 3 times', retryable: true });
    const again = await findDuplicateUpload(h.knowledge.deps, owner, kbId, { filename: 'hose.txt', bytes });
    expect(again!.requeuedJobId).toEqual(expect.any(String));
    expect(again!.document.processingStatus).toBe('pending');
    // A file that failed for its own sake stays a duplicate.
    const blank = Buffer.from('   \n  ');
    const bad = await uploadDocument(h.knowledge.deps, owner, kbId, { filename: 'blank.txt', bytes: blank });
    const badJob = { id: bad.jobId, queue: INGEST_QUEUE, attempt: 1, payload: { organizationId: org, documentId: bad.document.id } };
    expect(await processIngestJob(h.knowledge.deps, badJob)).toBe('failed');
    const duplicate = await findDuplicateUpload(h.knowledge.deps, owner, kbId, { filename: 'blank.txt', bytes: blank });
    expect(duplicate).toMatchObject({ requeuedJobId: null, document: { id: bad.document.id, processingStatus: 'failed' } });
  });
});
