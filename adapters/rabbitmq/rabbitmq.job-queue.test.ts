import type { ChannelModel } from 'amqplib';
import { connect } from 'amqplib';

import { runJobQueueConformance, sleep, waitFor } from '../../test/conformance/job-queue.conformance';
import { RabbitMqJobQueue } from './rabbitmq.job-queue';
import { rabbitmqOptionsSchema } from './rabbitmq.options';
import {
  adminConnection,
  AMQP_URL,
  breakConnection,
  deleteTopology,
  describeReal,
  messageCount,
  quietLogger,
  recordingLogger,
  uniquePrefix,
} from './test-fixtures/broker';

describe('RabbitMqJobQueue without a broker', () => {
  it('validates its options, listing every problem at once', () => {
    expect(rabbitmqOptionsSchema.required).toEqual(['url', 'prefix']);
    expect(() => new RabbitMqJobQueue({ url: 'http://x', prefix: '.bad' })).toThrow(
      expect.objectContaining({ code: 'VALIDATION', details: [expect.stringContaining('/url'), expect.stringContaining('/prefix')] }),
    );
  });

  it('rejects operations with UPSTREAM_FAILED when the broker is unreachable, without crashing', async () => {
    const logger = recordingLogger();
    const queue = new RabbitMqJobQueue({ url: 'amqp://guest:guest@127.0.0.1:1', prefix: 'unreachable' }, { logger });
    await expect(queue.enqueue('work', 1)).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
    await expect(queue.consume('work', async () => undefined)).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
    await expect(queue.deadLetters('work')).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
    expect(logger.lines.some((l) => l.includes('connection failed'))).toBe(true);
    await queue.close();
    await expect(queue.enqueue('work', 1)).rejects.toMatchObject({ code: 'INVALID_STATE' });
  });

  it('uses an injected connect function', async () => {
    const urls: string[] = [];
    const queue = new RabbitMqJobQueue(
      { url: 'amqp://injected:secret@example.invalid', prefix: 'injected' },
      {
        logger: quietLogger,
        connect: async (url) => {
          urls.push(url);
          throw new Error('fake transport refuses');
        },
      },
    );
    await expect(queue.enqueue('work', 1)).rejects.toMatchObject({
      code: 'UPSTREAM_FAILED',
      message: expect.stringContaining('fake transport refuses'),
    });
    expect(urls).toEqual(['amqp://injected:secret@example.invalid']);
    await queue.close();
  });
});

describeReal('RabbitMqJobQueue on a real broker', () => {
  const prefix = uniquePrefix('jobq');
  const instances: RabbitMqJobQueue[] = [];
  const make = (deps: ConstructorParameters<typeof RabbitMqJobQueue>[1] = {}) => {
    const queue = new RabbitMqJobQueue({ url: AMQP_URL, prefix }, { logger: quietLogger, ...deps });
    instances.push(queue);
    return queue;
  };

  afterEach(async () => {
    await Promise.allSettled(instances.map((q) => q.close()));
  });
  afterAll(async () => {
    await deleteTopology(instances.flatMap((q) => q.declaredQueues));
  });

  runJobQueueConformance('rabbitmq', async () => make());

  it('stores durable, persistent messages with jobId as messageId, confirmed before enqueue resolves', async () => {
    const queue = make();
    await queue.enqueue('props', { hello: 'world' }, { jobId: 'job-props-1' });
    // The confirm means the broker has it: the queue already counts it, no waiting.
    expect(await messageCount(`${prefix}.props`)).toBe(1);

    const admin = await adminConnection();
    try {
      const channel = await admin.createChannel();
      const check = await channel.assertQueue(`${prefix}.props`, { durable: true });
      expect(check.messageCount).toBe(1);
      const msg = await channel.get(`${prefix}.props`, { noAck: true });
      if (msg === false) throw new Error('expected a message');
      expect(msg.properties.messageId).toBe('job-props-1');
      expect(msg.properties.deliveryMode).toBe(2);
      expect(msg.properties.contentType).toBe('application/json');
      expect(JSON.parse(msg.content.toString())).toEqual({ hello: 'world' });
    } finally {
      await admin.close();
    }
  });

  it('retries through a TTL wait queue and keeps the attempt in a header', async () => {
    const queue = make();
    const attempts: number[] = [];
    await queue.consume(
      'via-wait',
      async (job) => {
        attempts.push(job.attempt);
        if (job.attempt < 2) throw new Error('first attempt fails');
      },
      { backoffMs: 25 },
    );
    await queue.enqueue('via-wait', 'x');
    await waitFor(() => attempts.length === 2);
    expect(attempts).toEqual([1, 2]);
    expect(queue.declaredQueues).toContain(`${prefix}.via-wait.delay.25`);
  });

  it('does not deduplicate jobIds (best effort: both copies are delivered, with the same job.id)', async () => {
    const queue = make();
    const seen: string[] = [];
    await queue.enqueue('dup', 1, { jobId: 'dup-1' });
    await queue.enqueue('dup', 2, { jobId: 'dup-1' });
    await queue.consume('dup', async (job) => void seen.push(job.id));
    await waitFor(() => seen.length === 2);
    expect(seen).toEqual(['dup-1', 'dup-1']);
  });

  it('survives a dropped connection: pending publishes reject, the consumer resumes, later enqueues work', async () => {
    const models: ChannelModel[] = [];
    const logger = recordingLogger();
    const queue = make({
      logger,
      connect: async (url) => {
        const model = await connect(url);
        models.push(model);
        return model;
      },
    });
    const seen: unknown[] = [];
    await queue.consume('resilient', async (job) => void seen.push(job.payload));
    await queue.enqueue('resilient', 'before');
    await waitFor(() => seen.length === 1);

    const inFlight = queue.enqueue('resilient', 'in-flight');
    breakConnection(models[0]);
    await expect(inFlight).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });

    // A new connection is opened on demand; retry until the broker has the job.
    await waitFor(async () => {
      try {
        await queue.enqueue('resilient', 'after');
        return true;
      } catch {
        return false;
      }
    });
    await waitFor(() => seen.includes('after'));
    expect(models.length).toBeGreaterThan(1);
    expect(logger.lines.some((l) => l.includes('connection closed') || l.includes('lost its channel'))).toBe(true);
  });

  it('peeks at dead letters without taking them off the dead-letter queue', async () => {
    const queue = make();
    await queue.consume('peek', async () => Promise.reject(new Error('nope')), { maxAttempts: 1 });
    await queue.enqueue('peek', { n: 1 }, { jobId: 'peek-1' });
    await waitFor(async () => (await messageCount(`${prefix}.peek.dead`)) === 1);
    expect((await queue.deadLetters('peek')).map((j) => j.id)).toEqual(['peek-1']);
    await sleep(20);
    expect(await messageCount(`${prefix}.peek.dead`)).toBe(1);
  });
});
