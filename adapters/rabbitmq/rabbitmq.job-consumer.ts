import type { Channel, ConsumeMessage } from 'amqplib';

import type { ConsumeOptions, JobHandler, Subscription } from '../../core/ports/job-queue';
import { DomainError } from '../../core/shared/errors';
import { type RabbitMqConnection, Restarter } from './rabbitmq.connection';
import { metadataHeaders, metadataOf } from './rabbitmq.job-metadata';
import { errorMessage, type RabbitMqLogger } from './rabbitmq.options';
import type { ConfirmPublisher } from './rabbitmq.publisher';
import type { JobTopology } from './rabbitmq.topology';

/** Header carrying how many attempts a job had before this message was published. */
export const ATTEMPTS_HEADER = 'x-attempts-made';
export const LAST_ERROR_HEADER = 'x-last-error';

const DEFAULT_CONCURRENCY = 1;
const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_BACKOFF_MS = 1000;
const MAX_BACKOFF_MS = 60 * 60 * 1000;

export interface ResolvedConsumeOptions {
  concurrency: number;
  maxAttempts: number;
  backoffMs: number;
}

export interface JobConsumerDeps {
  connection: RabbitMqConnection;
  publisher: ConfirmPublisher;
  topology: JobTopology;
  logger: RabbitMqLogger;
}

/**
 * One consumer of `<prefix>.<queue>` on its own channel, prefetch = concurrency, manual acks.
 * A job is acked only after its handler returned, or after its retry / dead letter was confirmed by the
 * broker, so a crash at any point leaves the message unacked and the broker redelivers it.
 * If the channel or connection is lost, the consumer resumes on a new one (backoff 100 ms to 5 s).
 */
export class RabbitMqJobConsumer implements Subscription {
  private channel?: Channel;
  private consumerTag?: string;
  private readonly inFlight = new Set<Promise<void>>();
  private stopped = false;
  private readonly restarter: Restarter;

  constructor(
    private readonly queue: string,
    private readonly handler: JobHandler<unknown>,
    private readonly options: ResolvedConsumeOptions,
    private readonly deps: JobConsumerDeps,
  ) {
    this.restarter = new Restarter(
      `RabbitMQ consumer of ${queue}`,
      () => this.start(),
      () => this.stopped || deps.connection.closed,
      deps.logger,
    );
  }

  async start(): Promise<void> {
    const { connection, topology } = this.deps;
    const channel = await connection.channel();
    try {
      await channel.prefetch(this.options.concurrency);
      await topology.declareWork(this.queue).declare(channel);
      await topology.declareDead(this.queue).declare(channel);
      channel.on('close', () => this.onChannelClosed(channel));
      this.channel = channel;
      const reply = await channel.consume(topology.work(this.queue), (msg) => this.onMessage(channel, msg), {
        noAck: false,
      });
      this.consumerTag = reply.consumerTag;
    } catch (err) {
      if (this.channel === channel) this.channel = undefined;
      await channel.close().catch(() => undefined);
      throw new DomainError('UPSTREAM_FAILED', `RabbitMQ consume failed: ${errorMessage(err)}`);
    }
    if (this.stopped) await this.close();
  }

  /** Stops receiving, waits for running handlers (they ack), then closes the channel. */
  async close(): Promise<void> {
    this.stopped = true;
    this.restarter.cancel();
    const channel = this.channel;
    if (channel && this.consumerTag) await channel.cancel(this.consumerTag).catch(() => undefined);
    await Promise.allSettled([...this.inFlight]);
    this.channel = undefined;
    this.consumerTag = undefined;
    if (channel) await channel.close().catch(() => undefined);
  }

  private onChannelClosed(channel: Channel): void {
    if (this.channel !== channel) return;
    this.channel = undefined;
    this.consumerTag = undefined;
    if (this.stopped || this.deps.connection.closed) return;
    this.deps.logger.warn(`RabbitMQ consumer of ${this.queue} lost its channel; resuming`);
    this.restarter.schedule();
  }

  private onMessage(channel: Channel, msg: ConsumeMessage | null): void {
    if (msg === null) {
      // The broker cancelled us (e.g. the queue was deleted): start over on a fresh channel.
      this.deps.logger.warn(`RabbitMQ cancelled the consumer of ${this.queue}`);
      void channel.close().catch(() => undefined);
      return;
    }
    const task: Promise<void> = this.handle(channel, msg)
      .catch((err: unknown) => this.deps.logger.error(`job handling failed on ${this.queue}`, { error: errorMessage(err) }))
      .finally(() => this.inFlight.delete(task));
    this.inFlight.add(task);
  }

  private async handle(channel: Channel, msg: ConsumeMessage): Promise<void> {
    const made = toCount(msg.properties.headers?.[ATTEMPTS_HEADER]);
    // A redelivery (consumer died or its channel closed before acking) counts as one more delivery.
    // AMQP only says "redelivered", not how often, so this is a lower bound after several crashes.
    const attempt = made + 1 + (msg.fields.redelivered ? 1 : 0);
    const id = typeof msg.properties.messageId === 'string' ? msg.properties.messageId : `tag-${msg.fields.deliveryTag}`;
    let payload: unknown;
    try {
      payload = JSON.parse(msg.content.toString('utf8'));
    } catch (err) {
      await this.settle(channel, msg, () => this.deadLetter(msg, attempt, `malformed payload: ${errorMessage(err)}`));
      return;
    }
    try {
      const metadata = metadataOf(msg.properties.headers);
      await this.handler({ id, queue: this.queue, payload, attempt, ...(metadata ? { metadata } : {}) });
    } catch (err) {
      const reason = errorMessage(err);
      if (attempt >= this.options.maxAttempts) {
        this.deps.logger.warn(`job ${id} on ${this.queue} dead-lettered after ${attempt} attempts`, { error: reason });
        await this.settle(channel, msg, () => this.deadLetter(msg, attempt, reason));
      } else {
        await this.settle(channel, msg, () => this.retry(msg, attempt, reason));
      }
      return;
    }
    ack(channel, msg, this.deps.logger);
  }

  /** Acks once `republish` is confirmed; if it failed, requeues the original so nothing is lost. */
  private async settle(channel: Channel, msg: ConsumeMessage, republish: () => Promise<void>): Promise<void> {
    try {
      await republish();
    } catch (err) {
      this.deps.logger.error(`could not republish job on ${this.queue}; requeueing it`, { error: errorMessage(err) });
      try {
        channel.nack(msg, false, true);
      } catch {
        // channel gone: the broker requeues unacked messages itself
      }
      return;
    }
    ack(channel, msg, this.deps.logger);
  }

  private retry(msg: ConsumeMessage, attempt: number, reason: string): Promise<void> {
    const { topology, publisher } = this.deps;
    const delay = backoffDelay(this.options.backoffMs, attempt);
    const properties = republishProperties(msg, { [ATTEMPTS_HEADER]: attempt, [LAST_ERROR_HEADER]: reason.slice(0, 500) });
    if (delay === 0) {
      return publisher.publish('', topology.work(this.queue), msg.content, properties, [topology.declareWork(this.queue)]);
    }
    return publisher.publish('', topology.delay(this.queue, delay), msg.content, { ...properties, expiration: String(delay) }, [
      topology.declareWork(this.queue),
      topology.declareDelay(this.queue, delay),
    ]);
  }

  private deadLetter(msg: ConsumeMessage, attempt: number, reason: string): Promise<void> {
    const { topology, publisher } = this.deps;
    const properties = republishProperties(msg, {
      [ATTEMPTS_HEADER]: attempt,
      [LAST_ERROR_HEADER]: reason.slice(0, 500),
      'x-dead-lettered-at': new Date().toISOString(),
    });
    return publisher.publish('', topology.dead(this.queue), msg.content, properties, [topology.declareDead(this.queue)]);
  }
}

function republishProperties(msg: ConsumeMessage, headers: Record<string, unknown>) {
  return {
    messageId: msg.properties.messageId as string | undefined,
    contentType: 'application/json',
    persistent: true,
    mandatory: true,
    timestamp: msg.properties.timestamp as number | undefined,
    headers: { ...metadataHeaders(metadataOf(msg.properties.headers)), ...headers },
  };
}

function ack(channel: Channel, msg: ConsumeMessage, logger: RabbitMqLogger): void {
  try {
    channel.ack(msg);
  } catch (err) {
    logger.warn('ack failed (channel closed); the broker will redeliver the job', { error: errorMessage(err) });
  }
}

function toCount(value: unknown): number {
  const n = typeof value === 'number' ? value : Number(value);
  return Number.isInteger(n) && n > 0 ? n : 0;
}

export function resolveConsumeOptions(options: ConsumeOptions): ResolvedConsumeOptions {
  const concurrency = options.concurrency ?? DEFAULT_CONCURRENCY;
  const maxAttempts = options.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
  const backoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  if (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 65535) {
    throw new DomainError('VALIDATION', 'concurrency must be an integer from 1 to 65535');
  }
  if (!Number.isInteger(maxAttempts) || maxAttempts < 1) throw new DomainError('VALIDATION', 'maxAttempts must be an integer >= 1');
  if (!Number.isFinite(backoffMs) || backoffMs < 0) throw new DomainError('VALIDATION', 'backoffMs must be a number >= 0');
  return { concurrency, maxAttempts, backoffMs };
}

/** Wait before the next attempt after `failedAttempt` failed: `base * 2^(failedAttempt-1)`, capped at one hour. */
export function backoffDelay(baseMs: number, failedAttempt: number): number {
  return Math.min(Math.round(baseMs * 2 ** (failedAttempt - 1)), MAX_BACKOFF_MS);
}
