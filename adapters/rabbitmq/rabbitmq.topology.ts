import type { Channel } from 'amqplib';

import { DomainError } from '../../core/shared/errors';
import type { Declaration } from './rabbitmq.publisher';

/**
 * Names and declarations of the queues behind one logical job queue:
 *
 * - `<prefix>.<queue>`            durable work queue (persistent messages, manual acks)
 * - `<prefix>.<queue>.dead`       durable dead-letter queue: jobs that exhausted their attempts
 * - `<prefix>.<queue>.delay.<ms>` durable wait queue without consumers: every message waits `<ms>`
 *                                 (queue TTL, also set per message) and is then dead-lettered by the
 *                                 broker back into the work queue. Used for retries and `delayMs`.
 *
 * One wait queue per distinct delay, because RabbitMQ only expires messages at the head of a queue:
 * in a single retry queue, a message waiting an hour would hold back a 20 ms retry behind it.
 * Exponential backoff only produces a few distinct delays; an idle wait queue deletes itself
 * (`x-expires`, one minute after its TTL) so arbitrary `delayMs` values do not accumulate queues.
 */
export class JobTopology {
  constructor(
    private readonly prefix: string,
    private readonly onDeclare: (queueName: string) => void = () => undefined,
  ) {}

  work(queue: string): string {
    assertQueueName(queue);
    return `${this.prefix}.${queue}`;
  }

  dead(queue: string): string {
    return `${this.work(queue)}.dead`;
  }

  delay(queue: string, ms: number): string {
    return `${this.work(queue)}.delay.${ms}`;
  }

  declareWork(queue: string): Declaration {
    const name = this.work(queue);
    return {
      key: `queue:${name}`,
      declare: (channel: Channel) => {
        this.onDeclare(name);
        return channel.assertQueue(name, { durable: true });
      },
    };
  }

  declareDead(queue: string): Declaration {
    const name = this.dead(queue);
    return {
      key: `queue:${name}`,
      declare: (channel: Channel) => {
        this.onDeclare(name);
        return channel.assertQueue(name, { durable: true });
      },
    };
  }

  /** No key, so it is declared on every use: redeclaring keeps `x-expires` from firing while the queue is in use. */
  declareDelay(queue: string, ms: number): Declaration {
    const name = this.delay(queue, ms);
    const work = this.work(queue);
    return {
      declare: (channel: Channel) => {
        this.onDeclare(name);
        return channel.assertQueue(name, {
          durable: true,
          arguments: {
            'x-message-ttl': ms,
            'x-expires': ms + 60_000,
            'x-dead-letter-exchange': '',
            'x-dead-letter-routing-key': work,
          },
        });
      },
    };
  }
}

const QUEUE_NAME = /^[A-Za-z0-9][A-Za-z0-9_.:-]{0,199}$/;
const RESERVED_SEGMENT = /\.(dead|delay)(\.|$)/;

/** Same rule as the in-process queue: names that could collide with a dead or delay queue are refused. */
export function assertQueueName(queue: string): void {
  if (typeof queue !== 'string' || !QUEUE_NAME.test(queue) || RESERVED_SEGMENT.test(queue)) {
    throw new DomainError('VALIDATION', `Invalid queue name: ${JSON.stringify(queue)}`);
  }
}
