import type { ChannelModel } from 'amqplib';
import { connect } from 'amqplib';

import { runEventBusConformance } from '../../test/conformance/event-bus.conformance';
import { waitFor } from '../../test/conformance/job-queue.conformance';
import { RabbitMqEventBus } from './rabbitmq.event-bus';
import { AMQP_URL, breakConnection, deleteTopology, describeReal, quietLogger, uniquePrefix } from './test-fixtures/broker';

describe('RabbitMqEventBus without a broker', () => {
  it('rejects publish with UPSTREAM_FAILED when the broker is unreachable', async () => {
    const bus = new RabbitMqEventBus({ url: 'amqp://guest:guest@127.0.0.1:1', prefix: 'unreachable' }, { logger: quietLogger });
    expect(bus.exchange).toBe('unreachable.events');
    await expect(bus.publish('t', 1)).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
    await expect(bus.subscribe('t', () => undefined)).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
    await bus.close();
  });
});

describeReal('RabbitMqEventBus on a real broker', () => {
  const prefix = uniquePrefix('bus');
  const buses: RabbitMqEventBus[] = [];
  const make = (deps: ConstructorParameters<typeof RabbitMqEventBus>[1] = {}) => {
    const bus = new RabbitMqEventBus({ url: AMQP_URL, prefix }, { logger: quietLogger, ...deps });
    buses.push(bus);
    return bus;
  };

  afterEach(async () => {
    await Promise.allSettled(buses.map((b) => b.close()));
  });
  afterAll(async () => {
    await deleteTopology([], [`${prefix}.events`]);
  });

  runEventBusConformance('rabbitmq', async () => make(), { sharedAcrossInstances: true });

  it('resubscribes after the connection drops', async () => {
    const models: ChannelModel[] = [];
    const subscriber = make({
      connect: async (url) => {
        const model = await connect(url);
        models.push(model);
        return model;
      },
    });
    const publisher = make();
    const seen: unknown[] = [];
    await subscriber.subscribe('resume.test', (e) => void seen.push(e.payload));
    await publisher.publish('resume.test', 'before');
    await waitFor(() => seen.length === 1);

    breakConnection(models[0]);
    await waitFor(() => models.length === 2);
    // The new subscription queue exists once it receives; keep publishing until one arrives.
    await waitFor(async () => {
      await publisher.publish('resume.test', 'after');
      return seen.includes('after');
    });
    expect(seen[0]).toBe('before');
  });
});
