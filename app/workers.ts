import type { Container } from 'inversify';

import { startMetricsServer } from '../adapters/http/metrics-server';
import { analyticsJobConsumer } from './analytics-services';
import { channelDeliveryRelayConsumer, channelInboundConsumer, channelOutboundConsumer } from './channels-services';
import type { Consumer } from './consumer';
import { INFRASTRUCTURE, SERVICES } from './container';
import { graphOptimizeConsumer } from './graph-services';
import type { Infrastructure } from './infrastructure';
import { jobSweeperConsumer, webhookDeliveryConsumer, webhookRelayConsumer } from './jobs-services';
import { knowledgeIngestConsumer } from './knowledge-services';
import { provisioningBuildConsumer, provisioningSweepConsumer } from './provisioning-services';
import { attachmentExtractConsumer } from './public-chat-services';
import type { Services } from './services';
import { sourceSchedulerConsumer, sourceSyncConsumer } from './sources-services';

/** Every background consumer of the worker role. Areas add theirs here (the type lives in ./consumer). */
export const consumers: Consumer<Services>[] = [
  knowledgeIngestConsumer,
  graphOptimizeConsumer,
  sourceSyncConsumer,
  sourceSchedulerConsumer,
  attachmentExtractConsumer,
  webhookDeliveryConsumer,
  webhookRelayConsumer,
  provisioningBuildConsumer,
  provisioningSweepConsumer,
  channelInboundConsumer,
  channelOutboundConsumer,
  channelDeliveryRelayConsumer,
  analyticsJobConsumer,
  jobSweeperConsumer,
];

export async function startWorkers(container: Container): Promise<{ close(): Promise<void> }> {
  const infra = container.get<Infrastructure>(INFRASTRUCTURE);
  const services = container.get<Services>(SERVICES);
  const subscriptions = await Promise.all(consumers.map((c) => c.start(infra, services)));
  // The worker role's own /metrics (job outcomes, queue depth, ingestion, tokens); in `start` the api serves them.
  const metrics =
    infra.config.role === 'worker' && infra.config.metricsPort
      ? await startMetricsServer([infra.metrics.registry], infra.config.metricsPort, '0.0.0.0')
      : null;
  return {
    close: async () => {
      await metrics?.close();
      await Promise.all(subscriptions.map((s) => s.close()));
    },
  };
}
