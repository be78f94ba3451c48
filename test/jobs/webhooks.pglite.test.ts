/**
 * The webhook sender over the real queue machinery (in-process queue, fast backoff) and the relational store,
 * with a scripted receiver in place of the network (the HTTPS path is covered end to end in
 * test/e2e/job-webhooks.e2e.test.ts): signatures over the raw body, 3 attempts at most, outcomes recorded, a job's
 * deliveries in order, queued only after their transaction commits, and relayed when their message was lost.
 */
import { randomUUID } from 'node:crypto';

import { InProcessJobQueue } from '../../adapters/memory/in-process.job-queue';
import type { JobQueue } from '../../core/ports/job-queue';
import type { OutboundFetcher, OutboundRequest } from '../../core/ports/outbound-fetcher';
import { DomainError } from '../../core/shared/errors';
import type { WebhookDelivery } from '../../core/webhooks/webhook-delivery';
import { verifyWebhookSignature } from '../../core/webhooks/webhook-signature';
import { checkWebhookUrl } from '../../core/webhooks/webhook-url';
import {
  deliverWebhook,
  recordWebhook,
  relayStalledWebhooks,
  scheduleWebhook,
  WEBHOOK_QUEUE,
  type WebhookDeps,
  type WebhookJobPayload,
} from '../../core/webhooks/webhooks';
import { createKnowledgeHarness, type KnowledgeHarness } from '../knowledge/knowledge-harness';

const SECRET = 'webhook-secret-for-tests-0123456789';

/** A receiver scripted per delivery: `answer(n)` is the status of that delivery's n-th request. */
class ScriptedReceiver implements OutboundFetcher {
  readonly requests: OutboundRequest[] = [];
  readonly answers: (number | string)[] = [];
  private readonly seen = new Map<string, number>();
  constructor(private readonly answer: (attempt: number, request: OutboundRequest) => number | Error) {}

  async fetch(request: OutboundRequest) {
    this.requests.push(request);
    const id = request.headers!['x-service-delivery'];
    const n = (this.seen.get(id) ?? 0) + 1;
    this.seen.set(id, n);
    const status = this.answer(n, request);
    this.answers.push(status instanceof Error ? status.message : status);
    if (status instanceof Error) throw status;
    return { status, headers: {}, body: Buffer.alloc(0), url: request.url };
  }
}

let h: KnowledgeHarness;
let org: string;
beforeAll(async () => {
  h = await createKnowledgeHarness();
  org = (await h.newOrganization('hooks')).organizationId;
});
afterAll(() => h?.close());

async function withSender(receiver: OutboundFetcher, work: (deps: WebhookDeps, queue: InProcessJobQueue) => Promise<void>) {
  const queue = new InProcessJobQueue({ logger: { warn: () => undefined } });
  const deps: WebhookDeps = {
    store: h.deps.store,
    clock: h.deps.clock,
    ids: h.deps.ids,
    queue,
    fetcher: receiver,
    settings: { secret: SECRET, maxAttempts: 3, backoffMs: 1, timeoutMs: 1000, maxResponseBytes: 1024 },
    log: () => undefined,
  };
  await queue.consume<WebhookJobPayload>(WEBHOOK_QUEUE, async (job) => void (await deliverWebhook(deps, job)), {
    concurrency: 8,
    maxAttempts: 5,
    backoffMs: 1,
  });
  try {
    await work(deps, queue);
  } finally {
    await queue.close();
  }
}

const schedule = (deps: WebhookDeps, event = 'completed', body: unknown = { jobId: randomUUID(), status: event }) =>
  scheduleWebhook(deps, { organizationId: org, jobId: null, url: 'https://hooks.example/in', event, body });
/** Waits until none of the deliveries is pending (one query per poll), then returns them in order. */
async function settled(ids: string[]) {
  const until = Date.now() + 170_000; // a ceiling for a loaded machine, not a timing check
  for (;;) {
    const [{ n }] = await h.db.knex('webhook_deliveries').whereIn('id', ids).where({ status: 'pending' }).count({ n: '*' });
    if (Number(n) === 0) break;
    if (Date.now() > until) throw new Error(`${String(n)} deliveries still pending`);
    // Polls sparingly: the embedded database has one connection, which the deliveries need.
    await new Promise((r) => setTimeout(r, ids.length > 10 ? 250 : 20));
  }
  return Promise.all(ids.map((id) => h.deps.store.repos.webhookDeliveries.find(org, id)));
}

describe('webhook delivery', () => {
  it('delivers 1,000 events to a receiver that fails half the requests, each within the 3 attempts, all signed', async () => {
    // Every delivery's first request fails (503), its second succeeds: half of all requests fail.
    const receiver = new ScriptedReceiver((n) => (n === 1 ? 503 : 204));
    await withSender(receiver, async (deps) => {
      const deliveries = [];
      for (let i = 0; i < 1000; i++) deliveries.push(await schedule(deps, 'completed', { jobId: `job-${i}`, status: 'completed', n: i }));
      const rows = await settled(deliveries.map((d) => d.id));
      const delivered = rows.filter((r) => r!.status === 'delivered');
      expect(delivered.length / rows.length).toBeGreaterThanOrEqual(0.999);
      expect(rows.every((r) => r!.attempts === 2 && r!.lastStatusCode === 204 && r!.deliveredAt)).toBe(true);
    });
    expect(receiver.requests).toHaveLength(2000);
    expect(receiver.answers.filter((a) => a === 503)).toHaveLength(1000);
    for (const r of receiver.requests) {
      expect(r).toMatchObject({ method: 'POST', url: 'https://hooks.example/in', maxRedirects: 0 });
      expect(r.headers!['content-type']).toBe('application/json');
      expect(r.headers!['x-service-event']).toBe('completed');
      expect(verifyWebhookSignature(SECRET, r.body!, r.headers!['x-service-signature'])).toBe(true);
    }
    // The same bytes (and signature) on every attempt of a delivery.
    const byDelivery = new Map<string, Set<string>>();
    for (const r of receiver.requests) {
      const id = r.headers!['x-service-delivery'];
      byDelivery.set(id, (byDelivery.get(id) ?? new Set()).add(`${r.headers!['x-service-signature']}|${String(r.body)}`));
    }
    expect([...byDelivery.values()].every((variants) => variants.size === 1)).toBe(true);
  });

  it('gives up after 3 attempts on non-2xx answers and network errors, recording the last reason', async () => {
    const receiver = new ScriptedReceiver((n) => (n === 2 ? new DomainError('UPSTREAM_FAILED', 'network error: ECONNRESET') : 500));
    await withSender(receiver, async (deps) => {
      const d = await schedule(deps, 'failed');
      const [row] = await settled([d.id]);
      expect(row).toMatchObject({
        status: 'failed',
        attempts: 3,
        lastStatusCode: 500,
        lastError: 'The receiver answered 500',
        deliveredAt: null,
      });
    });
    expect(receiver.requests.map((r) => r.headers!['x-service-attempt'])).toEqual(['1', '2', '3']);
  });

  it('does not retry a refused target (internal address) and never calls a non-https URL', async () => {
    const refusing = new ScriptedReceiver(() => new DomainError('UNSUPPORTED_URL', 'URL resolves to a non-public address (loopback)'));
    await withSender(refusing, async (deps) => {
      const d = await schedule(deps);
      const [row] = await settled([d.id]);
      expect(row).toMatchObject({ status: 'failed', attempts: 1, lastError: expect.stringMatching(/non-public/) });
    });
    expect(refusing.requests).toHaveLength(1);

    const never = new ScriptedReceiver(() => 200);
    await withSender(never, async (deps) => {
      const d = await scheduleWebhook(deps, {
        organizationId: org,
        jobId: null,
        url: 'http://hooks.example/in',
        event: 'completed',
        body: {},
      });
      const [row] = await settled([d.id]);
      expect(row).toMatchObject({ status: 'failed', attempts: 1, lastError: 'webhookUrl must use https' });
    });
    expect(never.requests).toHaveLength(0);
  });

  it('a redelivered job after the delivery settled sends nothing more', async () => {
    const receiver = new ScriptedReceiver(() => 200);
    await withSender(receiver, async (deps) => {
      const d = await schedule(deps);
      await settled([d.id]);
      const again = await deliverWebhook(deps, {
        id: 'x',
        queue: WEBHOOK_QUEUE,
        attempt: 2,
        payload: { organizationId: org, deliveryId: d.id },
      });
      expect(again).toBe('skipped');
    });
    expect(receiver.requests).toHaveLength(1);
  });
});

/** A job row for deliveries to belong to (job ids are foreign keys). */
async function newJob(): Promise<string> {
  const id = randomUUID();
  const now = new Date().toISOString();
  await h.deps.store.repos.jobs.create({
    id,
    organizationId: org,
    kind: 'document_ingestion',
    status: 'running',
    progress: 0,
    step: null,
    stepLabel: null,
    detail: null,
    error: null,
    result: null,
    body: {},
    reference: {},
    webhookUrl: 'https://hooks.example/in',
    createdBy: null,
    createdAt: now,
    updatedAt: now,
    startedAt: now,
    finishedAt: null,
    emittedAt: now,
  });
  return id;
}

const eventsOf = (receiver: ScriptedReceiver) =>
  receiver.requests.map((r) => `${r.headers!['x-service-event']}#${r.headers!['x-service-attempt']}`);

describe('webhook delivery of a job', () => {
  it("sends a job's deliveries one at a time in the order of its events, each after the one before settled", async () => {
    // The first event fails twice before it lands, the second fails for good: the later ones still wait their turn.
    const receiver = new ScriptedReceiver((n, r) => {
      const event = r.headers!['x-service-event'];
      if (event === 'e1') return n < 3 ? 503 : 200;
      if (event === 'e2') return 500;
      return n === 1 ? 502 : 200;
    });
    const jobId = await newJob();
    await withSender(receiver, async (deps) => {
      const base = Date.now();
      const ids = [];
      for (const [i, event] of ['e1', 'e2', 'e3', 'e4'].entries()) {
        const created = new Date(base + i).toISOString();
        ids.push(
          (
            await scheduleWebhook(deps, {
              organizationId: org,
              jobId,
              url: 'https://hooks.example/in',
              event,
              body: { i },
              createdAt: created,
            })
          ).id,
        );
      }
      const rows = await settled(ids);
      expect(rows.map((r) => [r!.event, r!.status, r!.attempts])).toEqual([
        ['e1', 'delivered', 3],
        ['e2', 'failed', 3],
        ['e3', 'delivered', 2],
        ['e4', 'delivered', 2],
      ]);
    });
    expect(eventsOf(receiver)).toEqual(['e1#1', 'e1#2', 'e1#3', 'e2#1', 'e2#2', 'e2#3', 'e3#1', 'e3#2', 'e4#1', 'e4#2']);
  });

  it('sends an attempt once however often its message arrives', async () => {
    const receiver = new ScriptedReceiver(() => 200);
    const queue = new InProcessJobQueue({ logger: { warn: () => undefined } }); // no consumer: messages stay put
    const deps: WebhookDeps = {
      store: h.deps.store,
      clock: h.deps.clock,
      ids: h.deps.ids,
      queue,
      fetcher: receiver,
      settings: { secret: SECRET, maxAttempts: 3, backoffMs: 1, timeoutMs: 1000, maxResponseBytes: 1024 },
      log: () => undefined,
    };
    try {
      const d = await schedule(deps);
      const message = { id: 'm', queue: WEBHOOK_QUEUE, attempt: 1, payload: { organizationId: org, deliveryId: d.id, attempt: 1 } };
      const outcomes = await Promise.all([1, 2, 3].map(() => deliverWebhook(deps, message)));
      expect(outcomes.sort()).toEqual(['delivered', 'skipped', 'skipped']);
    } finally {
      await queue.close();
    }
    expect(receiver.requests).toHaveLength(1);
  });

  it('queues a delivery recorded inside a transaction only once it commits, and never after a rollback', async () => {
    const receiver = new ScriptedReceiver(() => 200);
    await withSender(receiver, async (deps) => {
      // The real queue, with a record of what was handed to it and when.
      const queued: string[] = [];
      const queue: JobQueue = {
        id: deps.queue.id,
        enqueue: (name, payload, options) => {
          queued.push((payload as WebhookJobPayload).deliveryId);
          return deps.queue.enqueue(name, payload, options);
        },
        consume: (name, handler, options) => deps.queue.consume(name, handler, options),
        deadLetters: (name) => deps.queue.deadLetters(name),
        close: () => deps.queue.close(),
      };
      const recording = { ...deps, queue };
      const input = { organizationId: org, jobId: null, url: 'https://hooks.example/in', body: {} };
      const kept = await deps.store.transaction(async (repos) => {
        const d = await recordWebhook(recording, repos, { ...input, event: 'kept' });
        await new Promise((r) => setTimeout(r, 20));
        expect(queued).toEqual([]); // a consumer could not find the uncommitted row yet
        return d;
      });
      await expect(
        deps.store.transaction(async (repos) => {
          await recordWebhook(recording, repos, { ...input, event: 'dropped' });
          throw new Error('rolled back');
        }),
      ).rejects.toThrow('rolled back');
      const [row] = await settled([kept.id]);
      expect(row).toMatchObject({ status: 'delivered', attempts: 1 });
      expect(queued).toEqual([kept.id]);
    });
    expect(eventsOf(receiver)).toEqual(['kept#1']);
  });

  it('relays deliveries whose message was lost, and settles one whose last attempt never came back', async () => {
    const receiver = new ScriptedReceiver(() => 200);
    const jobId = await newJob();
    const long = new Date(Date.now() - 3_600_000);
    const row = (event: string, i: number, attempts: number): WebhookDelivery => ({
      id: randomUUID(),
      organizationId: org,
      jobId,
      url: 'https://hooks.example/in',
      event,
      body: JSON.stringify({ event }),
      status: 'pending',
      attempts,
      lastStatusCode: attempts ? 503 : null,
      lastError: attempts ? 'The receiver answered 503' : null,
      createdAt: new Date(long.getTime() + i).toISOString(),
      updatedAt: new Date(long.getTime() + i).toISOString(),
      deliveredAt: null,
    });
    // Written without a queue message, as after a crash between commit and enqueue (or mid-attempt).
    const interrupted = row('interrupted', 0, 3);
    const lost = row('lost', 1, 1);
    const fresh = { ...row('fresh', 2, 0), jobId: null, updatedAt: new Date().toISOString() };
    for (const d of [interrupted, lost, fresh]) await h.deps.store.repos.webhookDeliveries.create(d);
    await withSender(receiver, async (deps) => {
      await relayStalledWebhooks(deps);
      const rows = await settled([interrupted.id, lost.id]);
      expect(rows.map((r) => [r!.event, r!.status, r!.attempts, r!.lastError])).toEqual([
        ['interrupted', 'failed', 3, 'The last attempt was interrupted'],
        ['lost', 'delivered', 2, null],
      ]);
      // A delivery touched recently is not the relay's business (its message may be on the way).
      expect((await h.deps.store.repos.webhookDeliveries.find(org, fresh.id))!.status).toBe('pending');
    });
    expect(eventsOf(receiver)).toEqual(['lost#2']);
  });
});

describe('webhook URLs', () => {
  it('accepts absolute https URLs only', () => {
    expect(checkWebhookUrl('https://hooks.example/in?x=1')).toBe('https://hooks.example/in?x=1');
    for (const bad of [
      'http://hooks.example/in',
      'ftp://x',
      '/relative',
      'https://user:pw@hooks.example/',
      '',
      42,
      `https://x.example/${'a'.repeat(2100)}`,
    ]) {
      expect(() => checkWebhookUrl(bad)).toThrow(expect.objectContaining({ code: 'VALIDATION' }));
    }
  });
});
