/**
 * Wiring of the knowledge graph: its use-case dependencies, the extraction step slotted into the ingestion
 * pipeline after `store`, and the `graph.optimize` worker (suggestion generation and ai-resolve jobs).
 */
import { type BillingDeps, ensureCredits } from '../core/billing/billing';
import { modelPrice, providerCost } from '../core/chat/chat-billing';
import { type ExtractionModels, graphExtractionStep } from '../core/graph/extraction-step';
import { GRAPH_QUEUE, type GraphDeps, type GraphJobPayload } from '../core/graph/graph-deps';
import { EXTRACTION_SCHEMA } from '../core/graph/model-extraction-schema';
import { modelGraphExtractor } from '../core/graph/model-extractor';
import { processGraphJob, ruleJudge } from '../core/graph/optimize';
import { leasedHandler } from '../core/jobs/job-leases';
import { defaultIngestionSteps, type IngestionStep } from '../core/knowledge/ingestion-steps';
import type { GraphExtractor } from '../core/ports/graph-extractor';
import type { HeavyWork } from '../core/ports/heavy-work';
import { DomainError, isDomainError } from '../core/shared/errors';
import { ajvOptionsValidator } from '../plugins/kit/ajv-options-validator';
import type { Consumer } from './consumer';
import type { Infrastructure } from './infrastructure';
import { buildLeaseDeps, endJob } from './jobs-services';
import { jobTracker } from './jobs-services';

/**
 * Model-backed extraction through the chat model router: the model's reply is validated with ajv against the
 * extraction schema, and priced from the model catalogue like a chat turn (free models bill 0).
 */
export function extractionModels(infra: Infrastructure, billing: BillingDeps): ExtractionModels {
  const validate = ajvOptionsValidator().compile(EXTRACTION_SCHEMA);
  const model = infra.config.settings.GRAPH_EXTRACTION_MODEL;
  return {
    defaultModel: typeof model === 'string' && model ? model : null,
    extractorFor: (id) => modelGraphExtractor({ chat: infra.chat.chatModel, model: id, validate }),
    async priceFor(organizationId, id) {
      const price = await modelPrice(infra.store.repos, id).catch((error: unknown) => {
        if (isDomainError(error) && error.code === 'VALIDATION')
          throw new DomainError('VALIDATION', `The graph extraction model ${id} is not in the model catalogue, so it cannot be priced`);
        throw error;
      });
      if (!price.isFree) await ensureCredits(billing, organizationId);
      return (usage) => providerCost(price, { ...usage, totalTokens: usage.promptTokens + usage.completionTokens });
    },
  };
}

/**
 * The offline extractor through the heavy-work pool: a large document's extraction is seconds of CPU that
 * would otherwise hold the loop serving requests. A model-backed extractor waits on the network and stays.
 */
export const offloadedGraphExtractor = (extractor: GraphExtractor, work: HeavyWork): GraphExtractor =>
  extractor.id === 'offline' && work.id !== 'in-process'
    ? { id: extractor.id, extract: (input, attribution) => work.run('graph.extractOffline', input, attribution) }
    : extractor;

/** The ingestion steps with graph extraction after `store` (before the summary). */
export function ingestionStepsWithGraph(infra: Infrastructure, billing: BillingDeps): IngestionStep[] {
  const step = graphExtractionStep({
    graph: infra.knowledge.graphStore,
    extractor: offloadedGraphExtractor(infra.knowledge.graphExtractor, infra.knowledge.heavyWork),
    billing,
    costUsd: () => 0,
    models: extractionModels(infra, billing),
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
    infra.queue.consume<GraphJobPayload>(
      GRAPH_QUEUE,
      leasedHandler(buildLeaseDeps(infra), (job) => processGraphJob(services.graph, job), {
        maxAttempts: 3,
        onExhausted: endJob(infra),
      }),
      { concurrency: 1, maxAttempts: 3, backoffMs: 2000 },
    ),
};
