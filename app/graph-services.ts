/**
 * Wiring of the knowledge graph: its use-case dependencies, the extraction step slotted into the ingestion
 * pipeline after `store`, and the `graph.optimize` worker (suggestion generation and ai-resolve jobs).
 */
import type { BillingDeps } from '../core/billing/billing';
import { graphExtractionStep } from '../core/graph/extraction-step';
import { GRAPH_QUEUE, type GraphDeps, type GraphJobPayload } from '../core/graph/graph-deps';
import { processGraphJob, ruleJudge } from '../core/graph/optimize';
import { defaultIngestionSteps, type IngestionStep } from '../core/knowledge/ingestion-steps';
import type { GraphExtractor } from '../core/ports/graph-extractor';
import type { HeavyWork } from '../core/ports/heavy-work';
import type { Consumer } from './consumer';
import type { Infrastructure } from './infrastructure';
import { jobTracker } from './jobs-services';

/**
 * The offline extractor through the heavy-work pool: a large document's extraction is seconds of CPU that
 * would otherwise hold the loop serving requests. A model-backed extractor waits on the network and stays.
 */
export const offloadedGraphExtractor = (extractor: GraphExtractor, work: HeavyWork): GraphExtractor =>
  extractor.id === 'offline' && work.id !== 'in-process'
    ? { id: extractor.id, extract: (input) => work.run('graph.extractOffline', input) }
    : extractor;

/** The ingestion steps with graph extraction after `store` (before the summary). */
export function ingestionStepsWithGraph(infra: Infrastructure, billing: BillingDeps): IngestionStep[] {
  const step = graphExtractionStep({
    graph: infra.knowledge.graphStore,
    extractor: offloadedGraphExtractor(infra.knowledge.graphExtractor, infra.knowledge.heavyWork),
    billing,
    costUsd: () => 0,
  });
  const at = defaultIngestionSteps.findIndex((s) => s.id === 'store') + 1;
  return [...defaultIngestionSteps.slice(0, at), step, ...defaultIngestionSteps.slice(at)];
}

export function buildGraphDeps(infra: Infrastructure, billing: BillingDeps): GraphDeps {
  return {
    store: infra.store,
    graph: infra.knowledge.graphStore,
    extractor: infra.knowledge.graphExtractor,
    queue: infra.queue,
    clock: infra.clock,
    ids: infra.ids,
    billing,
    imageDescriber: infra.knowledge.imageDescriber,
    judge: ruleJudge,
    jobs: jobTracker(infra),
    log: (level, message, extra) => infra.log(level, message, extra),
  };
}

/** The worker of `graph.optimize`. */
export const graphOptimizeConsumer: Consumer<{ graph: GraphDeps }> = {
  queue: GRAPH_QUEUE,
  start: (infra, services) =>
    infra.queue.consume<GraphJobPayload>(GRAPH_QUEUE, (job) => processGraphJob(services.graph, job), {
      concurrency: 1,
      maxAttempts: 3,
      backoffMs: 2000,
    }),
};
