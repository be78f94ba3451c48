import type { BusEvent, EventBus } from '../../core/ports/event-bus';
import type { Subscription } from '../../core/ports/job-queue';
import { InProcessEventBus } from '../memory/in-process.event-bus';
import { type IpcClient, type IpcPort, isEventMessage } from './ipc-rpc';

/**
 * An HTTP replica's bus: what it publishes goes to the primary process, which publishes it on its own bus and
 * relays every event of that bus to each replica; subscribers here get them from that relay. So every process
 * sees each event once, whichever process published it.
 */
export class IpcEventBus implements EventBus {
  readonly id = 'ipc';
  private readonly local: InProcessEventBus;
  private readonly onMessage = (m: unknown) => {
    if (isEventMessage(m)) void this.local.publish(m.topic, m.payload).catch(() => undefined);
  };

  constructor(
    private readonly primary: IpcClient,
    private readonly port: IpcPort,
    logger?: { warn(message: string, details?: unknown): void },
  ) {
    this.local = new InProcessEventBus({ logger });
    port.on('message', this.onMessage);
  }

  publish<T>(topic: string, payload: T): Promise<void> {
    return this.primary.call<void>('bus.publish', topic, payload);
  }

  subscribe<T>(topic: string, handler: (event: BusEvent<T>) => void): Promise<Subscription> {
    return this.local.subscribe(topic, handler);
  }

  async close(): Promise<void> {
    this.port.off('message', this.onMessage);
    await this.local.close();
  }
}
