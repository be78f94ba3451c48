import { randomBytes } from 'node:crypto';

import type { ChannelModel } from 'amqplib';

import type { RabbitMqLogger } from '../rabbitmq.options';
import { adminConnection } from './broker-admin';

export { adminConnection, AMQP_URL, deleteTopology } from './broker-admin';

/** Real-broker tests run only with TEST_REAL_SERVICES=1 (CI sets it). */
export const REAL_SERVICES = process.env.TEST_REAL_SERVICES === '1';

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
