/** Broker clean-up without jest globals, for test suites and for the split stack that benchmarks also start. */
import { type ChannelModel, connect } from 'amqplib';

export const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

/** Opens a plain connection for inspection and clean-up. */
export function adminConnection(url = AMQP_URL): Promise<ChannelModel> {
  return connect(url);
}

/** Deletes queues and exchanges; a missing one is fine. */
export async function deleteTopology(queues: Iterable<string>, exchanges: Iterable<string> = [], url = AMQP_URL): Promise<void> {
  const admin = await adminConnection(url);
  try {
    for (const queue of new Set(queues)) {
      const channel = await admin.createChannel();
      channel.on('error', () => undefined);
      await channel.deleteQueue(queue).catch(() => undefined);
      await channel.close().catch(() => undefined);
    }
    for (const exchange of new Set(exchanges)) {
      const channel = await admin.createChannel();
      channel.on('error', () => undefined);
      await channel.deleteExchange(exchange).catch(() => undefined);
      await channel.close().catch(() => undefined);
    }
  } finally {
    await admin.close();
  }
}
