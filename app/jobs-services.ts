/**
 * Wiring of the job contract (docs/contracts.md "Jobs"): the job kinds (areas with their own event shape register them
 * in `jobKinds`), the JobTracker every long-running job reports through, the `webhooks.deliver` worker and the
 * relay of the worker role that re-queues deliveries whose message was lost.
 * One JobDeps per infrastructure, so the api and the worker of a process share it.
 */
import { isDatabaseUnavailable } from '../adapters/postgres/database-errors';
import type { JobError } from '../core/jobs/job';
import { DEFAULT_JOB_SETTINGS, type JobDeps } from '../core/jobs/job-deps';
import { JobKindRegistry } from '../core/jobs/job-kinds';
import { type LeaseDeps, reviveStalledJobs } from '../core/jobs/job-leases';
import { JobTracker } from '../core/jobs/job-tracker';
import type { Subscription } from '../core/ports/job-queue';
import { buildJobKind } from '../core/provisioning/build-event';
import {
  DEFAULT_WEBHOOK_SETTINGS,
  deliverWebhook,
  relayStalledWebhooks,
  WEBHOOK_QUEUE,
  type WebhookDeps,
  type WebhookJobPayload,
  webhookRelayAfterMs,
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

/** The worker of `webhooks.deliver`: one message per attempt; the delivery row counts and spaces them. */
export const webhookDeliveryConsumer: Consumer<object> = {
  queue: WEBHOOK_QUEUE,
  start: (infra) => {
    const deps = buildWebhookDeps(infra);
    return infra.queue.consume<WebhookJobPayload>(WEBHOOK_QUEUE, async (job) => void (await deliverWebhook(deps, job)), {
      concurrency: 4,
      // Retries here only cover a failing store or queue; receiver failures are the delivery's own attempts.
      maxAttempts: 5,
      backoffMs: deps.settings.backoffMs,
    });
  },
};

/**
 * Not a queue consumer: relays stalled deliveries at start and then every half relay delay, on one worker at a
 * time (TickLeadership): two relays at once would queue the same attempt twice.
 */
export const webhookRelayConsumer: Consumer<object> = {
  queue: `${WEBHOOK_QUEUE}.relay`,
  async start(infra): Promise<Subscription> {
    const deps = buildWebhookDeps(infra);
    let running: Promise<unknown> = Promise.resolve();
    const tick = () => {
      running = infra.leadership
        .runExclusive(`${WEBHOOK_QUEUE}.relay`, () => relayStalledWebhooks(deps))
        .catch((error) => deps.log('error', 'webhook relay failed', error));
    };
    tick();
    const timer = setInterval(tick, Math.floor(webhookRelayAfterMs(deps.settings) / 2));
    timer.unref();
    return {
      close: async () => {
        clearInterval(timer);
        await running;
      },
    };
  },
};

/** A leased job's end when its attempts ran out: failed with the reason (kinds with more to undo pass their own). */
export const endJob =
  (infra: Infrastructure) =>
  async (job: { id: string }, error: JobError): Promise<void> =>
    void (await jobTracker(infra).fail(job.id, error));

export const buildLeaseDeps = (infra: Infrastructure): LeaseDeps => ({
  store: infra.store,
  clock: infra.clock,
  queue: infra.queue,
  log: (level, message, extra) => infra.log(level, message, extra),
  leaseMs: infra.config.jobs.leaseMs,
  isUnavailable: isDatabaseUnavailable,
});

/**
 * Not a queue consumer: the sweeper of leased jobs (core/jobs/job-leases.ts), at start and then every half lease.
 * At start, a queue whose messages died with the last process (embedded `start`) gets every unfinished job again.
 */
export const jobSweeperConsumer: Consumer<object> = {
  queue: 'jobs.sweeper',
  async start(infra): Promise<Subscription> {
    const deps = buildLeaseDeps(infra);
    let running: Promise<unknown> = Promise.resolve();
    const sweep = (orphaned: boolean) => {
      running = running.then(() => reviveStalledJobs(deps, { orphaned })).catch((error) => deps.log('error', 'job sweeper failed', error));
    };
    sweep(infra.queue.durable === false);
    const timer = setInterval(() => sweep(false), Math.max(500, Math.floor(deps.leaseMs / 2)));
    timer.unref();
    return {
      close: async () => {
        clearInterval(timer);
        await running;
      },
    };
  },
};
