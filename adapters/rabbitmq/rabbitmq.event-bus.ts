import { randomUUID } from 'node:crypto';

import type { Channel, ConsumeMessage } from 'amqplib';

import type { BusEvent, EventBus } from '../../core/ports/event-bus';
import type { Subscription } from '../../core/ports/job-queue';
import { DomainError } from '../../core/shared/errors';
import { RabbitMqConnection, Restarter } from './rabbitmq.connection';
import {
  consoleLogger,
  errorMessage,
  type RabbitMqDeps,
  type RabbitMqLogger,
  type RabbitMqOptions,
  rabbitmqOptionsSchema,
  validateRabbitMqOptions,
} from './rabbitmq.options';
import { ConfirmPublisher, type Declaration } from './rabbitmq.publisher';

type Handler = (event: BusEvent<unknown>) => void;

/**
 * Event bus on the topic exchange `<prefix>.events` (durable exchange, transient messages).
 * Each subscription owns an exclusive, auto-delete queue `<prefix>.events.sub.<uuid>` bound with the topic
 * as binding key, so `*` and `#` wildcards work. `publish` resolves once the broker confirmed it; an
 * event nobody subscribed to is simply dropped. After a connection loss a subscription resumes on a new
 * queue; events published in between are missed (notifications, not jobs).
 */
export class RabbitMqEventBus implements EventBus {
  static readonly optionsSchema = rabbitmqOptionsSchema;
  readonly id = 'rabbitmq';
  readonly exchange: string;
  private readonly connection: RabbitMqConnection;
  private readonly publisher: ConfirmPublisher;
  private readonly logger: RabbitMqLogger;
  private readonly now: () => Date;
  private readonly subscriptions = new Set<EventSubscription>();
  private closed = false;

  constructor(options: RabbitMqOptions, deps: Omit<RabbitMqDeps, 'newId'> = {}) {
    const { url, prefix } = validateRabbitMqOptions(options);
    this.exchange = `${prefix}.events`;
    this.logger = deps.logger ?? consoleLogger;
    const clock = deps.clock;
    this.now = clock ? () => clock.now() : () => new Date();
    this.connection = new RabbitMqConnection(url, this.logger, deps.connect);
    this.publisher = new ConfirmPublisher(this.connection);
  }

  async publish<T>(topic: string, payload: T): Promise<void> {
    this.assertOpen();
    assertTopic(topic);
    const event: BusEvent<T> = { topic, payload, emittedAt: this.now().toISOString() };
    let body: string | undefined;
    try {
      body = JSON.stringify({ ...event, payload: payload ?? null });
    } catch (err) {
      throw new DomainError('VALIDATION', `Event payload is not JSON-serialisable: ${errorMessage(err)}`);
    }
    if (body === undefined) throw new DomainError('VALIDATION', 'Event payload is not JSON-serialisable');
    await this.publisher.publish(this.exchange, topic, Buffer.from(body, 'utf8'), { contentType: 'application/json', persistent: false }, [
      this.declareExchange(),
    ]);
  }

  async subscribe<T>(topic: string, handler: (event: BusEvent<T>) => void): Promise<Subscription> {
    this.assertOpen();
    assertTopic(topic);
    const subscription = new EventSubscription(
      `${this.exchange}.sub.${randomUUID()}`,
      topic,
      handler as Handler,
      this.connection,
      { name: this.exchange, declaration: this.declareExchange() },
      this.logger,
    );
    await subscription.start();
    this.subscriptions.add(subscription);
    return {
      close: async () => {
        this.subscriptions.delete(subscription);
        await subscription.close();
      },
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.subscriptions].map((s) => s.close()));
    this.subscriptions.clear();
    await this.publisher.close();
    await this.connection.close();
  }

  private declareExchange(): Declaration {
    return {
      key: `exchange:${this.exchange}`,
      declare: (channel: Channel) => channel.assertExchange(this.exchange, 'topic', { durable: true }),
    };
  }

  private assertOpen(): void {
    if (this.closed) throw new DomainError('INVALID_STATE', 'The event bus is closed');
  }
}

class EventSubscription {
  private channel?: Channel;
  private stopped = false;
  private readonly restarter: Restarter;

  constructor(
    private readonly queue: string,
    private readonly topic: string,
    private readonly handler: Handler,
    private readonly connection: RabbitMqConnection,
    private readonly exchange: { name: string; declaration: Declaration },
    private readonly logger: RabbitMqLogger,
  ) {
    this.restarter = new Restarter(
      `RabbitMQ subscription to ${topic}`,
      () => this.start(),
      () => this.stopped || connection.closed,
      logger,
    );
  }

  async start(): Promise<void> {
    const channel = await this.connection.channel();
    try {
      await this.exchange.declaration.declare(channel);
      await channel.assertQueue(this.queue, { exclusive: true, autoDelete: true, durable: false });
      await channel.bindQueue(this.queue, this.exchange.name, this.topic);
      channel.on('close', () => this.onChannelClosed(channel));
      this.channel = channel;
      await channel.consume(this.queue, (msg) => this.onMessage(channel, msg), { noAck: true, exclusive: true });
    } catch (err) {
      if (this.channel === channel) this.channel = undefined;
      await channel.close().catch(() => undefined);
      throw new DomainError('UPSTREAM_FAILED', `RabbitMQ subscribe failed: ${errorMessage(err)}`);
    }
    if (this.stopped) await this.close();
  }

  /** Closing the channel drops the exclusive queue with it. */
  async close(): Promise<void> {
    this.stopped = true;
    this.restarter.cancel();
    const channel = this.channel;
    this.channel = undefined;
    if (channel) await channel.close().catch(() => undefined);
  }

  private onChannelClosed(channel: Channel): void {
    if (this.channel !== channel) return;
    this.channel = undefined;
    if (this.stopped || this.connection.closed) return;
    this.logger.warn(`RabbitMQ subscription to ${this.topic} lost its channel; resuming`);
    this.restarter.schedule();
  }

  private onMessage(channel: Channel, msg: ConsumeMessage | null): void {
    if (msg === null) {
      void channel.close().catch(() => undefined);
      return;
    }
    if (this.stopped) return;
    let event: BusEvent<unknown>;
    try {
      event = JSON.parse(msg.content.toString('utf8')) as BusEvent<unknown>;
    } catch (err) {
      this.logger.warn(`dropped a malformed event on ${msg.fields.routingKey}`, { error: errorMessage(err) });
      return;
    }
    try {
      const result = this.handler(event) as unknown;
      if (result instanceof Promise) result.catch((err: unknown) => this.handlerFailed(err));
    } catch (err) {
      this.handlerFailed(err);
    }
  }

  private handlerFailed(err: unknown): void {
    this.logger.warn(`event handler for topic ${this.topic} failed`, { error: errorMessage(err) });
  }
}

function assertTopic(topic: string): void {
  if (typeof topic !== 'string' || topic.length === 0 || Buffer.byteLength(topic) > 255) {
    throw new DomainError('VALIDATION', `Invalid topic: ${JSON.stringify(topic)}`);
  }
}
