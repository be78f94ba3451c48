import { definePort } from '../../adapters/kit/port-registry';
import type { Messaging } from '../../adapters/kit/port-shapes';
import { inProcessMessaging } from '../../adapters/memory/in-process.adapters';
import { rabbitMqMessaging } from '../../adapters/rabbitmq/rabbitmq.adapters';
import { EVENT_BUS } from '../../core/ports/event-bus';
import { JOB_QUEUE } from '../../core/ports/job-queue';
import { bindDerived, type PlatformPort } from './platform-port';

/** The job queue and the event bus come from one technology; each has its own token. */
export const MESSAGING = Symbol.for('Messaging');

const registry = definePort<Messaging>({
  key: 'QUEUE',
  description: 'Job queue and event bus',
  token: MESSAGING,
  // RabbitMQ first: RABBITMQ_URL alone selects it, as before the registry existed.
  adapters: [rabbitMqMessaging, inProcessMessaging],
});

export const queuePort: PlatformPort = {
  registry,
  bind(container, settings, context) {
    container
      .bind<Messaging>(MESSAGING)
      .toDynamicValue(async () => (await registry.createOne(settings, context)).instance)
      .inSingletonScope();
    bindDerived<Messaging, Messaging['queue']>(container, JOB_QUEUE, MESSAGING, (m) => m.queue);
    bindDerived<Messaging, Messaging['bus']>(container, EVENT_BUS, MESSAGING, (m) => m.bus);
  },
};
