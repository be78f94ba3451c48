import type { Channel, ChannelModel, ConfirmChannel } from 'amqplib';
import { connect as amqpConnect } from 'amqplib';

import { DomainError } from '../../core/shared/errors';
import { errorMessage, type RabbitMqLogger, redactUrl } from './rabbitmq.options';

/**
 * One lazily opened AMQP connection. If the broker goes away, the next call opens a new one.
 * Every connection and channel gets an `error` listener, so a broker or network failure is logged
 * and never becomes an uncaught 'error' event that would crash the process.
 */
export class RabbitMqConnection {
  private model?: Promise<ChannelModel>;
  private closing = false;

  constructor(
    private readonly url: string,
    private readonly logger: RabbitMqLogger,
    private readonly connectFn: (url: string) => Promise<ChannelModel> = (u) => amqpConnect(u),
  ) {}

  get closed(): boolean {
    return this.closing;
  }

  async channel(): Promise<Channel> {
    return this.open((model) => model.createChannel());
  }

  async confirmChannel(): Promise<ConfirmChannel> {
    return this.open((model) => model.createConfirmChannel());
  }

  async close(): Promise<void> {
    this.closing = true;
    const model = this.model;
    this.model = undefined;
    if (!model) return;
    try {
      await (await model).close();
    } catch {
      // already closed or never opened
    }
  }

  private async open<C extends Channel>(create: (model: ChannelModel) => Promise<C>): Promise<C> {
    if (this.closing) throw new DomainError('INVALID_STATE', 'The RabbitMQ adapter is closed');
    let channel: C;
    try {
      channel = await create(await this.connection());
    } catch (err) {
      if (err instanceof DomainError) throw err;
      throw new DomainError('UPSTREAM_FAILED', `RabbitMQ unavailable: ${errorMessage(err)}`);
    }
    channel.on('error', (err: Error) => this.logger.warn('RabbitMQ channel error', { error: err.message }));
    return channel;
  }

  private connection(): Promise<ChannelModel> {
    if (this.model) return this.model;
    const pending = this.connectFn(this.url).then((model) => {
      model.on('error', (err: Error) => this.logger.error('RabbitMQ connection error', { error: err.message }));
      model.on('close', (err?: Error) => {
        if (this.model === pending) this.model = undefined;
        if (!this.closing) {
          this.logger.warn('RabbitMQ connection closed', { url: redactUrl(this.url), error: err?.message });
        }
      });
      if (this.closing) {
        // close() ran while we were connecting: do not leak the connection
        void model.close().catch(() => undefined);
      }
      return model;
    });
    this.model = pending;
    pending.catch((err: unknown) => {
      if (this.model === pending) this.model = undefined;
      this.logger.warn('RabbitMQ connection failed', { url: redactUrl(this.url), error: errorMessage(err) });
    });
    return pending;
  }
}

/**
 * Runs `start` again after a channel or connection loss, with exponential backoff (100 ms to 5 s),
 * until it succeeds or `stopped()` turns true. Used by consumers and event subscriptions.
 */
export class Restarter {
  private timer?: NodeJS.Timeout;
  private failures = 0;

  constructor(
    private readonly label: string,
    private readonly start: () => Promise<void>,
    private readonly stopped: () => boolean,
    private readonly logger: RabbitMqLogger,
  ) {}

  schedule(): void {
    if (this.timer || this.stopped()) return;
    const delay = Math.min(100 * 2 ** this.failures, 5000);
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.stopped()) return;
      this.start().then(
        () => {
          this.failures = 0;
          this.logger.info?.(`${this.label} resumed`);
        },
        (err: unknown) => {
          this.failures++;
          this.logger.warn(`${this.label} could not resume, retrying`, { error: errorMessage(err) });
          this.schedule();
        },
      );
    }, delay);
  }

  cancel(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
  }
}
