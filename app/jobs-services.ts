/**
 * Wiring of the job contract (DECISIONS "Jobs"): the job kinds (areas with their own event shape register them
 * in `jobKinds`), the JobTracker every long-running job reports through, and the `webhooks.deliver` worker.
 * One JobDeps per infrastructure, so the api and the worker of a process share it.
 */
import { DEFAULT_JOB_SETTINGS, type JobDeps } from '../core/jobs/job-deps';
import { JobKindRegistry } from '../core/jobs/job-kinds';
import { JobTracker } from '../core/jobs/job-tracker';
import { buildJobKind } from '../core/provisioning/build-event';
import {
  DEFAULT_WEBHOOK_SETTINGS,
  deliverWebhook,
  WEBHOOK_QUEUE,
  type WebhookDeps,
  type WebhookJobPayload,
} from '../core/webhooks/webhooks';
import type { Consumer } from './consumer';
import type { Infrastructure } from './infrastructure';

/** Kinds with their own event shape or webhook rule (builds: the ProvisioningEvent of spec 2.12). */
export function jobKinds(): JobKindRegistry {
  return new JobKindRegistry().register(buildJobKind);
}

const built = new WeakMap<Infrastructure, { deps: JobDeps; tracker: JobTracker }>();

function jobsOf(infra: Infrastructure) {
  let entry = built.get(infra);
  if (!entry) {
    const deps: JobDeps = {
      store: infra.store,
      clock: infra.clock,
      ids: infra.ids,
      bus: infra.bus,
      queue: infra.queue,
      kinds: jobKinds(),
      settings: DEFAULT_JOB_SETTINGS,
      log: (level, message, extra) => infra.log(level, message, extra),
    };
    entry = { deps, tracker: new JobTracker(deps) };
    built.set(infra, entry);
  }
  return entry;
}

export const buildJobDeps = (infra: Infrastructure): JobDeps => jobsOf(infra).deps;
export const jobTracker = (infra: Infrastructure): JobTracker => jobsOf(infra).tracker;

export function buildWebhookDeps(infra: Infrastructure): WebhookDeps {
  return {
    store: infra.store,
    clock: infra.clock,
    ids: infra.ids,
    queue: infra.queue,
    fetcher: infra.knowledge.outbound,
    settings: {
      ...DEFAULT_WEBHOOK_SETTINGS,
      secret: infra.config.secrets.webhook,
      backoffMs: infra.config.webhooks.retryBackoffMs,
      timeoutMs: infra.config.webhooks.timeoutMs,
    },
    log: (level, message, extra) => infra.log(level, message, extra),
  };
}

/** The worker of `webhooks.deliver`: the queue's backoff spaces the attempts; the delivery row counts them. */
export const webhookDeliveryConsumer: Consumer<object> = {
  queue: WEBHOOK_QUEUE,
  start: (infra) => {
    const deps = buildWebhookDeps(infra);
    return infra.queue.consume<WebhookJobPayload>(WEBHOOK_QUEUE, async (job) => void (await deliverWebhook(deps, job)), {
      concurrency: 4,
      // A crashed worker's attempt is not recorded: leave the queue room beyond the recorded attempts.
      maxAttempts: deps.settings.maxAttempts + 2,
      backoffMs: deps.settings.backoffMs,
    });
  },
};
