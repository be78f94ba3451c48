import { randomUUID } from 'node:crypto';

import type { Channel, ConfirmChannel, Message, Options } from 'amqplib';

import { DomainError } from '../../core/shared/errors';
import type { RabbitMqConnection } from './rabbitmq.connection';
import { errorMessage } from './rabbitmq.options';

/** A queue or exchange to declare before publishing: once per channel if it has a key, else every time. */
export interface Declaration {
  key?: string;
  declare(channel: Channel): Promise<unknown>;
}

const PUBLISH_ID = 'x-publish-id';

/**
 * Publishes on a ConfirmChannel and resolves only once the broker has confirmed the message.
 * With `mandatory`, a message no queue accepted (e.g. its queue was deleted behind our back) is returned
 * by the broker before its confirm; that publish then rejects instead of silently succeeding.
 * A failure of the channel or the connection rejects every unconfirmed publish (amqplib does that) and
 * the next publish opens a new channel.
 */
export class ConfirmPublisher {
  private channel?: Promise<ConfirmChannel>;
  private declared = new Set<string>();
  private readonly returned = new Set<string>();

  constructor(private readonly connection: RabbitMqConnection) {}

  async publish(
    exchange: string,
    routingKey: string,
    content: Buffer,
    options: Options.Publish,
    declarations: Declaration[] = [],
  ): Promise<void> {
    try {
      const channel = await this.open();
      for (const declaration of declarations) {
        if (declaration.key !== undefined && this.declared.has(declaration.key)) continue;
        await declaration.declare(channel);
        if (declaration.key !== undefined) this.declared.add(declaration.key);
      }
      const publishId = randomUUID();
      const headers = { ...(options.headers as Record<string, unknown> | undefined), [PUBLISH_ID]: publishId };
      await new Promise<void>((resolve, reject) => {
        channel.publish(exchange, routingKey, content, { ...options, headers }, (err: unknown) => {
          if (err) return reject(err instanceof Error ? err : new Error(String(err)));
          if (this.returned.delete(publishId)) {
            this.declared.clear();
            return reject(new Error(`message to ${exchange || '(default exchange)'}/${routingKey} was unroutable`));
          }
          resolve();
        });
      });
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw new DomainError('UPSTREAM_FAILED', `RabbitMQ publish failed: ${errorMessage(err)}`);
    }
  }

  async close(): Promise<void> {
    const channel = this.channel;
    this.channel = undefined;
    if (!channel) return;
    try {
      const open = await channel;
      await open.waitForConfirms().catch(() => undefined);
      await open.close();
    } catch {
      // already closed
    }
  }

  private open(): Promise<ConfirmChannel> {
    if (this.channel) return this.channel;
    const pending = this.connection.confirmChannel().then((channel) => {
      channel.on('return', (message: Message) => {
        const id = message.properties.headers?.[PUBLISH_ID];
        if (typeof id === 'string') this.returned.add(id);
      });
      channel.on('close', () => {
        if (this.channel === pending) {
          this.channel = undefined;
          this.declared = new Set();
        }
      });
      return channel;
    });
    this.channel = pending;
    pending.catch(() => {
      if (this.channel === pending) this.channel = undefined;
    });
    return pending;
  }
}
