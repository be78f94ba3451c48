export type WebhookDeliveryStatus = 'pending' | 'delivered' | 'failed';

/** One webhook event to one URL, with its attempts (spec 6: 3 attempts with backoff on non-2xx). */
export interface WebhookDelivery {
  id: string;
  organizationId: string;
  /** The job whose event this is (null for webhooks of other origins). */
  jobId: string | null;
  url: string;
  /** `X-Service-Event`: the event's status. */
  event: string;
  /** The exact JSON bytes that are signed and sent on every attempt. */
  body: string;
  status: WebhookDeliveryStatus;
  attempts: number;
  lastStatusCode: number | null;
  lastError: string | null;
  createdAt: string;
  updatedAt: string;
  deliveredAt: string | null;
}

export interface WebhookAttempt {
  attempts: number;
  status: WebhookDeliveryStatus;
  lastStatusCode: number | null;
  lastError: string | null;
  updatedAt: string;
  deliveredAt: string | null;
}

export interface WebhookDeliveryRepository {
  create(delivery: WebhookDelivery): Promise<void>;
  find(organizationId: string, id: string): Promise<WebhookDelivery | null>;
  /**
   * Records an attempt on a pending delivery that still has `previousAttempts` attempts (compare-and-set, so a
   * redelivered queue job cannot count one attempt twice); false when it changed meanwhile.
   */
  recordAttempt(organizationId: string, id: string, previousAttempts: number, attempt: WebhookAttempt): Promise<boolean>;
  /**
   * Takes attempt `previousAttempts + 1` of a pending delivery before it is sent (compare-and-set on the count, so
   * two copies of one queue message never both send); false when another took it or the delivery settled.
   */
  claimAttempt(organizationId: string, id: string, previousAttempts: number, at: string): Promise<boolean>;
  /** Oldest first (creation time, then id). */
  listForJob(organizationId: string, jobId: string): Promise<WebhookDelivery[]>;
  /** The oldest pending delivery of the job: a job's deliveries are sent one at a time, in order. */
  firstPendingOfJob(organizationId: string, jobId: string): Promise<WebhookDelivery | null>;
  /**
   * Pending deliveries untouched since before `before` that are first in line (no older pending delivery of the
   * same job), oldest first, of every organization: what the relay hands to the queue again.
   */
  listStalled(before: string, limit: number): Promise<WebhookDelivery[]>;
}
