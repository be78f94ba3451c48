import { defineAdapter, setting } from '../kit/adapter-definition';
import type { Messaging } from '../kit/port-shapes';

/** QUEUE=rabbitmq, picked when RABBITMQ_URL is set: durable job queues and the event bus. */
export const rabbitMqMessaging = defineAdapter<Messaging>({
  id: 'rabbitmq',
  description: 'RabbitMQ (durable queues, publisher confirms, dead letters; topic exchange for events)',
  settings: {
    RABBITMQ_URL: { type: 'string', pattern: '^amqps?://' },
    QUEUE_PREFIX: { type: 'string', default: 'agent-platform', pattern: '^[a-zA-Z0-9._-]+$' },
  },
  requires: ['RABBITMQ_URL'],
  selectedWhen: ['RABBITMQ_URL'],
  async create(settings) {
    const { RabbitMqJobQueue } = await import('./rabbitmq.job-queue');
    const { RabbitMqEventBus } = await import('./rabbitmq.event-bus');
    const options = {
      url: setting.requiredString(settings, 'RABBITMQ_URL'),
      prefix: setting.string(settings, 'QUEUE_PREFIX') ?? 'agent-platform',
    };
    return { queue: new RabbitMqJobQueue(options), bus: new RabbitMqEventBus(options) };
  },
});
