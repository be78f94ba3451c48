/**
 * Job events cross processes through the event-bus port (docs/contracts.md "Jobs"): the platform runs on RabbitMQ, and a
 * second, separate RabbitMQ connection stands in for a worker process that reports a job; a real EventSource
 * client on the platform's gateway sees every state it reports. Real broker only (TEST_REAL_SERVICES=1).
 */
import { RabbitMqEventBus } from '../../adapters/rabbitmq/rabbitmq.event-bus';
import { AMQP_URL, deleteTopology, quietLogger, uniquePrefix } from '../../adapters/rabbitmq/test-fixtures/broker';
import { consumers } from '../../app/workers';
import { DEFAULT_JOB_SETTINGS } from '../../core/jobs/job-deps';
import { JobKindRegistry } from '../../core/jobs/job-kinds';
import { JobTracker } from '../../core/jobs/job-tracker';
import { watchJob } from '../jobs/job-clients';
import { waitFor } from '../public-chat/public-support';
import { describeWithRealServices } from '../support/databases';
import { startTestPlatform, type TestPlatform } from '../support/platform';
import { registerUser, type TestUser } from '../support/users';

describeWithRealServices('job events through RabbitMQ (TEST_REAL_SERVICES=1)', () => {
  const prefix = uniquePrefix('jobs');
  let p: TestPlatform;
  let owner: TestUser;
  let workerBus: RabbitMqEventBus;
  let worker: JobTracker;

  beforeAll(async () => {
    p = await startTestPlatform({ RABBITMQ_URL: AMQP_URL, QUEUE_PREFIX: prefix });
    owner = await registerUser(p.http, { label: 'rabbit-jobs' });
    workerBus = new RabbitMqEventBus({ url: AMQP_URL, prefix }, { logger: quietLogger });
    const infra = p.infra;
    worker = new JobTracker({
      store: infra.store, // the relational store is shared by every role
      clock: infra.clock,
      ids: infra.ids,
      bus: workerBus,
      queue: infra.queue,
      kinds: new JobKindRegistry(),
      settings: DEFAULT_JOB_SETTINGS,
      log: () => undefined,
    });
  });
  afterAll(async () => {
    await workerBus?.close();
    await p?.close();
    const queues = consumers.flatMap((c) => [`${prefix}.${c.queue}`, `${prefix}.${c.queue}.dead`]);
    await deleteTopology(queues, [`${prefix}.events`]);
  });

  it("streams to an api client the events another process's bus connection publishes", async () => {
    expect(p.infra.bus.id).toBe('rabbitmq');
    const jobId = `rabbit-${Date.now()}`;
    await worker.start({ id: jobId, organizationId: owner.orgId, kind: 'graph_optimization' });
    const stream = watchJob(p, owner.accessToken, jobId);
    try {
      await waitFor(async () => stream.events.length === 1, 'the replayed state');
      // Only published from the worker's connection from here on.
      for (const progress of [25, 50, 75]) await worker.progress(jobId, { step: 'analysing', progress });
      await worker.complete(jobId, { result: { suggestions: 4 } });
      await waitFor(async () => stream.events.some((e) => e.type === 'done'), 'the done event');
    } finally {
      stream.source.close();
    }
    expect(stream.events.map((e) => [e.type, e.data.progress])).toEqual([
      ['progress', 0],
      ['progress', 25],
      ['progress', 50],
      ['progress', 75],
      ['done', 100],
    ]);
    expect(stream.events.at(-1)!.data.result).toEqual({ suggestions: 4 });
  });
});
