import { AsyncResource } from 'node:async_hooks';

import type { Clock } from '../../core/ports/clock';
import type { BusEvent, EventBus } from '../../core/ports/event-bus';
import type { Subscription } from '../../core/ports/job-queue';
import { DomainError } from '../../core/shared/errors';

export interface InProcessBusLogger {
  warn(message: string, details?: unknown): void;
}

export interface InProcessEventBusOptions {
  logger?: InProcessBusLogger;
  clock?: Clock;
}

type Handler = (event: BusEvent<unknown>) => void;

interface Subscriber {
  pattern: string;
  handler: Handler;
  /** The async context of `subscribe()`: handlers run in it, not in the publisher's (see the job queue). */
  scope: AsyncResource;
  active: boolean;
}

const MAX_TOPIC_BYTES = 255;

/**
 * Embedded event bus. Topics follow AMQP topic-exchange rules, like the RabbitMQ adapter:
 * words separated by `.`, a subscription may use `*` (exactly one word) and `#` (zero or more words).
 * Handlers run on a later tick than `publish`, in the async context of `subscribe` (not the publisher's); each gets its own copy of the payload (JSON round trip);
 * a handler that throws (or rejects) is logged and does not affect other handlers.
 */
export class InProcessEventBus implements EventBus {
  readonly id = 'in-process';
  private readonly subscribers = new Set<Subscriber>();
  private readonly logger: InProcessBusLogger;
  private readonly clock: Clock;
  private closed = false;

  constructor(options: InProcessEventBusOptions = {}) {
    this.logger = options.logger ?? console;
    this.clock = options.clock ?? { now: () => new Date() };
  }

  async publish<T>(topic: string, payload: T): Promise<void> {
    this.assertOpen();
    assertTopic(topic);
    const body = serialise(payload);
    const emittedAt = this.clock.now().toISOString();
    for (const subscriber of this.subscribers) {
      if (!topicMatches(subscriber.pattern, topic)) continue;
      setImmediate(() => this.deliver(subscriber, { topic, payload: JSON.parse(body) as unknown, emittedAt }));
    }
  }

  async subscribe<T>(topic: string, handler: (event: BusEvent<T>) => void): Promise<Subscription> {
    this.assertOpen();
    assertTopic(topic);
    const subscriber: Subscriber = {
      pattern: topic,
      handler: handler as Handler,
      scope: new AsyncResource('InProcessBusSubscriber'),
      active: true,
    };
    this.subscribers.add(subscriber);
    return {
      close: async () => {
        subscriber.active = false;
        this.subscribers.delete(subscriber);
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    for (const subscriber of this.subscribers) subscriber.active = false;
    this.subscribers.clear();
  }

  private deliver(subscriber: Subscriber, event: BusEvent<unknown>): void {
    if (!subscriber.active) return;
    try {
      const result = subscriber.scope.runInAsyncScope(() => subscriber.handler(event)) as unknown;
      if (result instanceof Promise) result.catch((err: unknown) => this.handlerFailed(event.topic, err));
    } catch (err) {
      this.handlerFailed(event.topic, err);
    }
  }

  private handlerFailed(topic: string, err: unknown): void {
    this.logger.warn(`event handler for topic ${topic} failed`, { error: err instanceof Error ? err.message : String(err) });
  }

  private assertOpen(): void {
    if (this.closed) throw new DomainError('INVALID_STATE', 'The event bus is closed');
  }
}

/** AMQP topic matching: `*` matches exactly one word, `#` zero or more words. */
export function topicMatches(pattern: string, topic: string): boolean {
  return matchWords(pattern.split('.'), 0, topic.split('.'), 0);
}

function matchWords(pattern: string[], p: number, words: string[], w: number): boolean {
  if (p === pattern.length) return w === words.length;
  const head = pattern[p];
  if (head === '#') {
    for (let skip = w; skip <= words.length; skip++) {
      if (matchWords(pattern, p + 1, words, skip)) return true;
    }
    return false;
  }
  if (w === words.length) return false;
  if (head !== '*' && head !== words[w]) return false;
  return matchWords(pattern, p + 1, words, w + 1);
}

function assertTopic(topic: string): void {
  if (typeof topic !== 'string' || topic.length === 0 || Buffer.byteLength(topic) > MAX_TOPIC_BYTES) {
    throw new DomainError('VALIDATION', `Invalid topic: ${JSON.stringify(topic)}`);
  }
}

function serialise(payload: unknown): string {
  let body: string | undefined;
  try {
    body = JSON.stringify(payload ?? null);
  } catch (err) {
    throw new DomainError('VALIDATION', `Event payload is not JSON-serialisable: ${err instanceof Error ? err.message : String(err)}`);
  }
  if (body === undefined) throw new DomainError('VALIDATION', 'Event payload is not JSON-serialisable');
  return body;
}
