/**
 * The webhook sender, shared by every job kind (builds reuse it): an event is recorded as a delivery (its exact
 * JSON body kept, so every attempt sends and signs the same bytes) and queued on `webhooks.deliver`; the worker
 * POSTs it through the SSRF-guarded outbound fetcher with `X-Service-Signature` and `X-Service-Event` (spec 5.3).
 * A non-2xx answer or a network error is retried by the queue with backoff, 3 attempts in all; the attempts and
 * the outcome are recorded on the delivery. Nothing of this runs on the request path.
 */
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Job, JobQueue } from '../ports/job-queue';
import type { OutboundFetcher } from '../ports/outbound-fetcher';
import type { Store } from '../ports/store';
import { DomainError, isDomainError } from '../shared/errors';
import type { WebhookDelivery } from './webhook-delivery';
import { signWebhookBody } from './webhook-signature';
import { checkWebhookUrl } from './webhook-url';

export const WEBHOOK_QUEUE = 'webhooks.deliver';

export interface WebhookJobPayload {
  organizationId: string;
  deliveryId: string;
}

export interface WebhookSettings {
  /** WEBHOOK_SIGNING_SECRET. */
  secret: string;
  /** Spec 6 and 8: 3. */
  maxAttempts: number;
  /** Base of the queue's exponential backoff between attempts. */
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

/** Records the delivery and queues its first attempt. `body` is serialised once, here. */
export async function scheduleWebhook(
  deps: Pick<WebhookDeps, 'store' | 'clock' | 'ids' | 'queue'>,
  input: { organizationId: string; jobId: string | null; url: string; event: string; body: unknown },
): Promise<WebhookDelivery> {
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
    createdAt: now,
    updatedAt: now,
    deliveredAt: null,
  };
  await deps.store.repos.webhookDeliveries.create(delivery);
  await deps.queue.enqueue<WebhookJobPayload>(
    WEBHOOK_QUEUE,
    { organizationId: delivery.organizationId, deliveryId: delivery.id },
    { jobId: `webhook-${delivery.id}` },
  );
  return delivery;
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

export type WebhookAttemptOutcome = 'delivered' | 'retrying' | 'failed' | 'skipped';

/**
 * One attempt of the `webhooks.deliver` job. Returns when the delivery is settled (delivered, or failed after the
 * last attempt or on a refused URL); throws so the queue retries with backoff otherwise.
 */
export async function deliverWebhook(deps: WebhookDeps, job: Job<WebhookJobPayload>): Promise<WebhookAttemptOutcome> {
  const repo = deps.store.repos.webhookDeliveries;
  const delivery = await repo.find(job.payload.organizationId, job.payload.deliveryId);
  if (!delivery || delivery.status !== 'pending') return 'skipped';
  const attempt = delivery.attempts + 1;
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
  const recorded = await repo.recordAttempt(delivery.organizationId, delivery.id, delivery.attempts, {
    attempts: attempt,
    status: delivered ? 'delivered' : settled ? 'failed' : 'pending',
    lastStatusCode: statusCode,
    lastError: error,
    updatedAt: now,
    deliveredAt: delivered ? now : null,
  });
  if (!recorded) return 'skipped'; // another copy of this job recorded the attempt
  if (delivered) return 'delivered';
  if (settled) {
    deps.log('info', `webhook ${delivery.id} failed after ${attempt} attempt(s): ${error}`);
    return 'failed';
  }
  throw new DomainError('UPSTREAM_FAILED', `Webhook attempt ${attempt} of ${deps.settings.maxAttempts} failed: ${error}`);
}
