/**
 * The webhook sender, shared by every job kind (builds reuse it). An event becomes a delivery row (its exact JSON
 * body kept, so every attempt sends and signs the same bytes) written in the same transaction as the state change
 * it reports (an outbox); once that commits, its first attempt goes on `webhooks.deliver`. The worker takes the
 * attempt (compare-and-set, so a duplicated message never sends twice) and POSTs it through the SSRF-guarded
 * outbound fetcher with `X-Service-Signature` and `X-Service-Event` (spec 5.3). A non-2xx answer or a network
 * error queues the next attempt with exponential backoff, 3 attempts in all (spec 6). A job's deliveries go out
 * one at a time in the order of its events: each waits for the one before it to settle. A relay re-queues
 * deliveries whose message was lost (enqueue failed, worker died), so none stays pending. Nothing of this runs on
 * the request path.
 */
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Job, JobQueue } from '../ports/job-queue';
import type { OutboundFetcher } from '../ports/outbound-fetcher';
import type { Repositories } from '../ports/repositories';
import type { Store } from '../ports/store';
import { isDomainError } from '../shared/errors';
import type { WebhookDelivery } from './webhook-delivery';
import { signWebhookBody } from './webhook-signature';
import { checkWebhookUrl } from './webhook-url';

export const WEBHOOK_QUEUE = 'webhooks.deliver';

export interface WebhookJobPayload {
  organizationId: string;
  deliveryId: string;
  /** The attempt this message is for; absent on messages queued by older versions (then: the next one). */
  attempt?: number;
}

export interface WebhookSettings {
  /** WEBHOOK_SIGNING_SECRET. */
  secret: string;
  /** Spec 6 and 8: 3. */
  maxAttempts: number;
  /** Wait after the n-th failed attempt: backoffMs * 2^(n-1). */
  backoffMs: number;
  timeoutMs: number;
  /** Largest receiver answer read (the body is not used). */
  maxResponseBytes: number;
}

export const DEFAULT_WEBHOOK_SETTINGS: Omit<WebhookSettings, 'secret'> = {
  maxAttempts: 3,
  backoffMs: 5000,
  timeoutMs: 10_000,
  maxResponseBytes: 64 * 1024,
};

/** Wait before the attempt after `failedAttempt`. */
export const webhookBackoffMs = (settings: Pick<WebhookSettings, 'backoffMs'>, failedAttempt: number) =>
  Math.round(settings.backoffMs * 2 ** (failedAttempt - 1));

/**
 * How long a pending delivery may sit untouched before the relay queues it again: longer than one attempt plus
 * the longest backoff, so a delivery that is only waiting for its next attempt is left alone.
 */
export const webhookRelayAfterMs = (settings: Omit<WebhookSettings, 'secret'>) =>
  Math.max(60_000, settings.timeoutMs + webhookBackoffMs(settings, settings.maxAttempts) + 30_000);

export type WebhookLog = (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;

export interface WebhookDeps {
  store: Store;
  clock: Clock;
  ids: IdGenerator;
  queue: JobQueue;
  fetcher: OutboundFetcher;
  settings: WebhookSettings;
  log: WebhookLog;
}

export interface WebhookEventInput {
  organizationId: string;
  jobId: string | null;
  url: string;
  event: string;
  body: unknown;
  /** Orders a job's deliveries (its event's emittedAt, strictly increasing per job); default now. */
  createdAt?: string;
}

type ScheduleDeps = Pick<WebhookDeps, 'store' | 'clock' | 'ids' | 'queue' | 'log'>;

/**
 * Writes the delivery with `repos` (inside the caller's transaction, next to the change it reports) and queues
 * its first attempt once that transaction commits. A failed enqueue is logged: the row is the truth, and the
 * relay queues it later. `body` is serialised once, here.
 */
export async function recordWebhook(deps: ScheduleDeps, repos: Repositories, input: WebhookEventInput): Promise<WebhookDelivery> {
  const now = deps.clock.now().toISOString();
  const delivery: WebhookDelivery = {
    id: deps.ids.uuid(),
    organizationId: input.organizationId,
    jobId: input.jobId,
    url: input.url,
    event: input.event,
    body: JSON.stringify(input.body),
    status: 'pending',
    attempts: 0,
    lastStatusCode: null,
    lastError: null,
    createdAt: input.createdAt ?? now,
    updatedAt: now,
    deliveredAt: null,
  };
  await repos.webhookDeliveries.create(delivery);
  deps.store.afterCommit(() =>
    queueWebhookAttempt(deps.queue, delivery, 1).catch((e) =>
      deps.log('warn', `webhook ${delivery.id}: first attempt not queued (the relay queues it)`, e),
    ),
  );
  return delivery;
}

/** Records the delivery (in a transaction of its own, or the caller's) and queues its first attempt after commit. */
export async function scheduleWebhook(deps: ScheduleDeps, input: WebhookEventInput): Promise<WebhookDelivery> {
  return deps.store.transaction((repos) => recordWebhook(deps, repos, input));
}

/** One message per attempt number: copies of it are harmless (the attempt is claimed once). */
export function queueWebhookAttempt(
  queue: JobQueue,
  delivery: Pick<WebhookDelivery, 'organizationId' | 'id'>,
  attempt: number,
  delayMs = 0,
): Promise<string> {
  return queue.enqueue<WebhookJobPayload>(
    WEBHOOK_QUEUE,
    { organizationId: delivery.organizationId, deliveryId: delivery.id, attempt },
    { jobId: `webhook-${delivery.id}-a${attempt}`, ...(delayMs > 0 ? { delayMs } : {}) },
  );
}

/** Queues the job's next delivery in line, if any (after the one before it settled). */
async function queueNextOfJob(deps: Pick<WebhookDeps, 'store' | 'queue'>, organizationId: string, jobId: string) {
  const next = await deps.store.repos.webhookDeliveries.firstPendingOfJob(organizationId, jobId);
  if (next) await queueWebhookAttempt(deps.queue, next, next.attempts + 1);
}

/** The headers of one attempt: the signature is over the stored raw body. */
export function webhookHeaders(secret: string, delivery: Pick<WebhookDelivery, 'id' | 'event' | 'body'>, attempt: number) {
  return {
    'content-type': 'application/json',
    'x-service-signature': signWebhookBody(secret, delivery.body),
    'x-service-event': delivery.event,
    'x-service-delivery': delivery.id,
    'x-service-attempt': String(attempt),
  };
}

export type WebhookAttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'skipped' | 'waiting';

/**
 * One attempt of a delivery (a `webhooks.deliver` message). `waiting`: an older delivery of the same job is still
 * pending (this one is queued when it settles); `skipped`: the attempt was taken or the delivery settled already.
 * Throws only when the store or queue fails, so the queue retries the message.
 */
export async function deliverWebhook(deps: WebhookDeps, job: Job<WebhookJobPayload>): Promise<WebhookAttemptOutcome> {
  const repo = deps.store.repos.webhookDeliveries;
  const delivery = await repo.find(job.payload.organizationId, job.payload.deliveryId);
  if (!delivery || delivery.status !== 'pending') return 'skipped';
  const attempt = job.payload.attempt ?? delivery.attempts + 1;
  if (attempt !== delivery.attempts + 1 || attempt > deps.settings.maxAttempts) return 'skipped';
  if (delivery.jobId) {
    const first = await repo.firstPendingOfJob(delivery.organizationId, delivery.jobId);
    if (first && first.id !== delivery.id) return 'waiting';
  }
  if (!(await repo.claimAttempt(delivery.organizationId, delivery.id, delivery.attempts, deps.clock.now().toISOString()))) return 'skipped';
  let statusCode: number | null = null;
  let error: string | null = null;
  let permanent = false;
  try {
    const url = checkWebhookUrl(delivery.url);
    const res = await deps.fetcher.fetch({
      url,
      method: 'POST',
      headers: webhookHeaders(deps.settings.secret, delivery, attempt),
      body: delivery.body,
      timeoutMs: deps.settings.timeoutMs,
      maxBytes: deps.settings.maxResponseBytes,
      maxRedirects: 0,
    });
    statusCode = res.status;
    if (res.status < 200 || res.status > 299) error = `The receiver answered ${res.status}`;
  } catch (e) {
    // A refused target (internal address, not https) stays refused: no point in retrying.
    permanent = isDomainError(e) && (e.code === 'UNSUPPORTED_URL' || e.code === 'VALIDATION');
    error = isDomainError(e) ? e.message : `Delivery failed: ${e instanceof Error ? e.message : String(e)}`;
  }
  const delivered = error === null;
  const settled = delivered || permanent || attempt >= deps.settings.maxAttempts;
  const now = deps.clock.now().toISOString();
  const recorded = await repo.recordAttempt(delivery.organizationId, delivery.id, attempt, {
    attempts: attempt,
    status: delivered ? 'delivered' : settled ? 'failed' : 'pending',
    lastStatusCode: statusCode,
    lastError: error,
    updatedAt: now,
    deliveredAt: delivered ? now : null,
  });
  if (!recorded) return 'skipped'; // the relay settled it meanwhile
  if (!settled) {
    await queueWebhookAttempt(deps.queue, delivery, attempt + 1, webhookBackoffMs(deps.settings, attempt));
    return 'retrying';
  }
  if (!delivered) deps.log('info', `webhook ${delivery.id} failed after ${attempt} attempt(s): ${error}`);
  if (delivery.jobId) await queueNextOfJob(deps, delivery.organizationId, delivery.jobId);
  return delivered ? 'delivered' : 'failed';
}

/**
 * The relay: pending deliveries first in line and untouched for `webhookRelayAfterMs` lost their message (the
 * enqueue after commit failed, the queue lost it, a worker died mid-attempt). Each gets its next attempt queued
 * again; one whose last attempt was taken but never recorded is settled as failed, and its job's next delivery
 * queued. Returns how many it handled.
 */
export async function relayStalledWebhooks(deps: WebhookDeps, limit = 100): Promise<number> {
  const now = deps.clock.now();
  const before = new Date(now.getTime() - webhookRelayAfterMs(deps.settings)).toISOString();
  const repo = deps.store.repos.webhookDeliveries;
  const stalled = await repo.listStalled(before, limit);
  for (const d of stalled) {
    if (d.attempts < deps.settings.maxAttempts) {
      await queueWebhookAttempt(deps.queue, d, d.attempts + 1);
      continue;
    }
    const settled = await repo.recordAttempt(d.organizationId, d.id, d.attempts, {
      attempts: d.attempts,
      status: 'failed',
      lastStatusCode: d.lastStatusCode,
      lastError: 'The last attempt was interrupted',
      updatedAt: now.toISOString(),
      deliveredAt: null,
    });
    if (settled && d.jobId) await queueNextOfJob(deps, d.organizationId, d.jobId);
  }
  return stalled.length;
}
