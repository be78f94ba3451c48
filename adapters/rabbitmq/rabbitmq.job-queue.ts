import { randomUUID } from 'node:crypto';

import type { GetMessage } from 'amqplib';

import type { ConsumeOptions, EnqueueOptions, Job, JobHandler, JobQueue, Subscription } from '../../core/ports/job-queue';
import { DomainError } from '../../core/shared/errors';
import { RabbitMqConnection } from './rabbitmq.connection';
import { ATTEMPTS_HEADER, RabbitMqJobConsumer, resolveConsumeOptions } from './rabbitmq.job-consumer';
import { metadataHeaders, metadataOf } from './rabbitmq.job-metadata';
import {
  consoleLogger,
  errorMessage,
  type RabbitMqDeps,
  type RabbitMqLogger,
  type RabbitMqOptions,
  rabbitmqOptionsSchema,
  validateRabbitMqOptions,
} from './rabbitmq.options';
import { ConfirmPublisher } from './rabbitmq.publisher';
import { JobTopology } from './rabbitmq.topology';

/** deadLetters() returns at most this many (the oldest). */
export const DEAD_LETTER_PEEK_LIMIT = 1000;
const MAX_DELAY_MS = 2_147_483_647;

/**
 * Job queue on RabbitMQ: durable queues, persistent messages, publisher confirms (`enqueue` resolves once
 * the broker has the message), manual acks, prefetch = concurrency. Retries and `delayMs` go through
 * TTL wait queues that dead-letter back into the work queue (see JobTopology); exhausted jobs land in
 * `<prefix>.<queue>.dead`.
 *
 * `jobId` becomes the AMQP messageId and therefore `job.id`, but RabbitMQ cannot deduplicate: enqueueing
 * the same jobId twice delivers it twice. Handlers must be idempotent on `job.id` (at-least-once anyway).
 */
export class RabbitMqJobQueue implements JobQueue {
  static readonly optionsSchema = rabbitmqOptionsSchema;
  readonly id = 'rabbitmq';
  private readonly connection: RabbitMqConnection;
  private readonly publisher: ConfirmPublisher;
  private readonly topology: JobTopology;
  private readonly logger: RabbitMqLogger;
  private readonly newId: () => string;
  private readonly consumers = new Set<RabbitMqJobConsumer>();
  private readonly declared = new Set<string>();
  /** Logical queues this instance enqueued to or consumed from (the queue-depth metric asks the broker about them). */
  private readonly used = new Set<string>();
  private peekChain: Promise<unknown> = Promise.resolve();
  private closed = false;

  constructor(options: RabbitMqOptions, deps: RabbitMqDeps = {}) {
    const { url, prefix } = validateRabbitMqOptions(options);
    this.logger = deps.logger ?? consoleLogger;
    this.newId = deps.newId ?? randomUUID;
    this.connection = new RabbitMqConnection(url, this.logger, deps.connect);
    this.publisher = new ConfirmPublisher(this.connection);
    this.topology = new JobTopology(prefix, (name) => this.declared.add(name));
  }

  /** Every queue this instance has declared (work, dead and wait queues), for operators and test clean-up. */
  get declaredQueues(): string[] {
    return [...this.declared];
  }

  async enqueue<T>(queue: string, payload: T, options: EnqueueOptions = {}): Promise<string> {
    this.assertOpen();
    const work = this.topology.work(queue);
    const delay = checkDelay(options.delayMs);
    const content = serialise(payload);
    const id = options.jobId ?? this.newId();
    const properties = {
      messageId: id,
      contentType: 'application/json',
      persistent: true,
      mandatory: true,
      timestamp: Math.floor(Date.now() / 1000),
      headers: { [ATTEMPTS_HEADER]: 0, ...metadataHeaders(options.metadata) },
    };
    this.used.add(queue);
    if (delay === 0) {
      await this.publisher.publish('', work, content, properties, [this.topology.declareWork(queue)]);
    } else {
      await this.publisher.publish('', this.topology.delay(queue, delay), content, { ...properties, expiration: String(delay) }, [
        this.topology.declareWork(queue),
        this.topology.declareDelay(queue, delay),
      ]);
    }
    return id;
  }

  async consume<T>(queue: string, handler: JobHandler<T>, options: ConsumeOptions = {}): Promise<Subscription> {
    this.assertOpen();
    this.topology.work(queue);
    this.used.add(queue);
    const consumer = new RabbitMqJobConsumer(queue, handler as JobHandler<unknown>, resolveConsumeOptions(options), {
      connection: this.connection,
      publisher: this.publisher,
      topology: this.topology,
      logger: this.logger,
    });
    await consumer.start();
    this.consumers.add(consumer);
    return {
      close: async () => {
        this.consumers.delete(consumer);
        await consumer.close();
      },
    };
  }

  /**
   * Peeks at `<prefix>.<queue>.dead` without removing anything: gets every message unacked, then requeues
   * them all (RabbitMQ puts requeued messages back in their original order). Calls are serialised.
   */
  async deadLetters(queue: string): Promise<Job[]> {
    this.assertOpen();
    const dead = this.topology.dead(queue);
    const run = this.peekChain.then(() => this.peek(queue, dead));
    this.peekChain = run.catch(() => undefined);
    return run;
  }

  /**
   * Ready messages per work queue, as the broker counts them (jobs waiting in a delay queue for a retry or
   * `delayMs` are not included). A queue the broker cannot answer for is left out.
   */
  async depths(): Promise<Record<string, number>> {
    this.assertOpen();
    const out: Record<string, number> = {};
    if (this.used.size === 0) return out;
    const channel = await this.connection.channel();
    try {
      for (const queue of this.used) {
        const reply = await channel.checkQueue(this.topology.work(queue)).catch(() => null);
        if (reply) out[queue] = reply.messageCount;
        else break; // a failed check closes the channel
      }
    } finally {
      await channel.close().catch(() => undefined);
    }
    return out;
  }

  /** Stops consuming, waits for running handlers, then closes channels and the connection. */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await Promise.allSettled([...this.consumers].map((c) => c.close()));
    this.consumers.clear();
    await this.peekChain;
    await this.publisher.close();
    await this.connection.close();
  }

  private async peek(queue: string, dead: string): Promise<Job[]> {
    const channel = await this.connection.channel();
    const jobs: Job[] = [];
    try {
      await this.topology.declareDead(queue).declare(channel);
      while (jobs.length < DEAD_LETTER_PEEK_LIMIT) {
        const msg = await channel.get(dead, { noAck: false });
        if (msg === false) break;
        jobs.push(toJob(queue, msg));
      }
      channel.nackAll(true);
    } catch (err) {
      throw new DomainError('UPSTREAM_FAILED', `Reading dead letters failed: ${errorMessage(err)}`);
    } finally {
      await channel.close().catch(() => undefined); // also requeues anything still unacked
    }
    return jobs;
  }

  private assertOpen(): void {
    if (this.closed) throw new DomainError('INVALID_STATE', 'The job queue is closed');
  }
}

function toJob(queue: string, msg: GetMessage): Job {
  const text = msg.content.toString('utf8');
  let payload: unknown;
  try {
    payload = JSON.parse(text);
  } catch {
    payload = text;
  }
  const attempts = Number(msg.properties.headers?.[ATTEMPTS_HEADER] ?? 0);
  const job: Job = {
    id: String(msg.properties.messageId ?? ''),
    queue,
    payload,
    attempt: Number.isFinite(attempts) ? attempts : 0,
  };
  const metadata = metadataOf(msg.properties.headers);
  if (metadata) job.metadata = metadata;
  return job;
}

function checkDelay(delayMs: number | undefined): number {
  if (delayMs === undefined) return 0;
  if (!Number.isFinite(delayMs) || delayMs < 0) throw new DomainError('VALIDATION', 'delayMs must be a number >= 0');
  if (delayMs > MAX_DELAY_MS) throw new DomainError('VALIDATION', `delayMs must be at most ${MAX_DELAY_MS}`);
  return Math.round(delayMs);
}

function serialise(payload: unknown): Buffer {
  let body: string | undefined;
  try {
    body = JSON.stringify(payload ?? null);
  } catch (err) {
    throw new DomainError('VALIDATION', `Job payload is not JSON-serialisable: ${errorMessage(err)}`);
  }
  if (body === undefined) throw new DomainError('VALIDATION', 'Job payload is not JSON-serialisable');
  return Buffer.from(body, 'utf8');
}
