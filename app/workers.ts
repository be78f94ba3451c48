import type { Container } from 'inversify';

import type { Subscription } from '../core/ports/job-queue';
import { INFRASTRUCTURE, SERVICES } from './container';
import type { Infrastructure } from './infrastructure';
import { webhookDeliveryConsumer } from './jobs-services';
import { knowledgeIngestConsumer } from './knowledge-services';
import { attachmentExtractConsumer } from './public-chat-services';
import type { Services } from './services';
import { sourceSchedulerConsumer, sourceSyncConsumer } from './sources-services';

/** A background consumer: one queue, one core use case. Areas add theirs to `consumers`. */
export interface Consumer {
  queue: string;
  start(infra: Infrastructure, services: Services): Promise<Subscription>;
}

export const consumers: Consumer[] = [
  knowledgeIngestConsumer,
  sourceSyncConsumer,
  sourceSchedulerConsumer,
  attachmentExtractConsumer,
  webhookDeliveryConsumer,
];

export async function startWorkers(container: Container): Promise<{ close(): Promise<void> }> {
  const infra = container.get<Infrastructure>(INFRASTRUCTURE);
  const services = container.get<Services>(SERVICES);
  const subscriptions = await Promise.all(consumers.map((c) => c.start(infra, services)));
  return { close: async () => void (await Promise.all(subscriptions.map((s) => s.close()))) };
}
