import { randomBytes } from 'node:crypto';

import { type ChannelModel,connect } from 'amqplib';

import type { RabbitMqLogger } from '../rabbitmq.options';

/** Real-broker tests run only with TEST_REAL_SERVICES=1 (CI sets it). */
export const REAL_SERVICES = process.env.TEST_REAL_SERVICES === '1';
export const AMQP_URL = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

export const describeReal: jest.Describe = REAL_SERVICES ? describe : describe.skip;

/** A prefix no other test file or run uses. */
export function uniquePrefix(label: string): string {
  return `test-${label}-${randomBytes(5).toString('hex')}`;
}

export const quietLogger: RabbitMqLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/** Logger that keeps messages, to assert that failures were reported instead of thrown. */
export function recordingLogger(): RabbitMqLogger & { lines: string[] } {
  const lines: string[] = [];
  const push = (message: string) => void lines.push(message);
  return { lines, info: push, warn: push, error: push };
}

/** Opens a plain connection for inspection and clean-up. */
export function adminConnection(): Promise<ChannelModel> {
  return connect(AMQP_URL);
}

/** Deletes queues and exchanges; a missing one is fine. */
export async function deleteTopology(queues: Iterable<string>, exchanges: Iterable<string> = []): Promise<void> {
  const admin = await adminConnection();
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

/** Message count of a queue, or undefined when it does not exist. */
export async function messageCount(queue: string): Promise<number | undefined> {
  const admin = await adminConnection();
  try {
    const channel = await admin.createChannel();
    channel.on('error', () => undefined);
    try {
      return (await channel.checkQueue(queue)).messageCount;
    } catch {
      return undefined;
    }
  } finally {
    await admin.close().catch(() => undefined);
  }
}

/** Simulates a network failure: destroys the socket under an amqplib connection with an error. */
export function breakConnection(model: ChannelModel): void {
  const socket = (model.connection as unknown as { stream: { destroy(err?: Error): void } }).stream;
  socket.destroy(new Error('simulated network failure'));
}
