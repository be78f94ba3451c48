/**
 * Wiring of provisioning from a URL (spec 4.13): the build use cases over the sources, knowledge and agents
 * areas and the job contract, the `provisioning.build` worker, and a timer of the worker role that re-queues
 * builds nobody runs (lost message, dead worker), so every build ends.
 */
import type { AgentDeps } from '../core/agents/agent-deps';
import { type BillingDeps, ensureCredits } from '../core/billing/billing';
import { modelPrice, providerCost } from '../core/chat/chat-billing';
import type { CatalogueDeps } from '../core/models/catalogue';
import type { Subscription } from '../core/ports/job-queue';
import { BUILD_QUEUE, type BuildJobPayload } from '../core/provisioning/build';
import { DEFAULT_MEDIA_SETTINGS, type MediaTranscription } from '../core/provisioning/media-transcripts';
import { ANALYSIS_SCHEMA, type AnalysisModels } from '../core/provisioning/model-analysis';
import { DEFAULT_PROVISIONING_SETTINGS, type ProvisioningDeps } from '../core/provisioning/provisioning-deps';
import { requeueStaleBuilds, runBuild } from '../core/provisioning/run-build';
import type { SourcesDeps } from '../core/sources/sources-deps';
import { ajvOptionsValidator } from '../plugins/kit/ajv-options-validator';
import type { Consumer } from './consumer';
import type { Infrastructure } from './infrastructure';
import { jobTracker } from './jobs-services';

/** Catalogue prices of a model call; a paid model needs credits first. */
const pricing = (infra: Infrastructure, billing: BillingDeps) => async (organizationId: string, id: string) => {
  const price = await modelPrice(infra.store.repos, id);
  if (!price.isFree) await ensureCredits(billing, organizationId);
  return (usage: { promptTokens: number; completionTokens: number }) =>
    providerCost(price, { ...usage, totalTokens: usage.promptTokens + usage.completionTokens });
};

/** Model-backed analysis through the chat model router, priced from the catalogue like a chat turn. */
export function analysisModels(infra: Infrastructure, billing: BillingDeps): AnalysisModels {
  const model = infra.config.settings.PROVISIONING_ANALYSIS_MODEL;
  return {
    defaultModel: typeof model === 'string' && model ? model : null,
    chat: infra.chat.chatModel,
    validate: ajvOptionsValidator().compile(ANALYSIS_SCHEMA as unknown as Record<string, unknown>),
    billing,
    priceFor: pricing(infra, billing),
  };
}

/** Transcription of caption-less media through the transcriber uploads use (TRANSCRIPTION_PROVIDER); none without one. */
export function mediaTranscription(infra: Infrastructure, billing: BillingDeps): MediaTranscription | undefined {
  const transcriber = infra.knowledge.transcriber;
  return transcriber ? { transcriber, billing, priceFor: pricing(infra, billing) } : undefined;
}

export function buildProvisioningDeps(
  infra: Infrastructure,
  areas: { sources: SourcesDeps; agents: AgentDeps; catalogue: CatalogueDeps; billing: BillingDeps },
): ProvisioningDeps {
  const p = infra.config.provisioning;
  const settings = infra.config.settings;
  const { billing, ...rest } = areas;
  return {
    store: infra.store,
    clock: infra.clock,
    ids: infra.ids,
    queue: infra.queue,
    jobs: jobTracker(infra),
    ...rest,
    analysis: analysisModels(infra, billing),
    transcription: mediaTranscription(infra, billing),
    settings: {
      ...DEFAULT_PROVISIONING_SETTINGS,
      leaseMs: p.leaseMs,
      phaseTimeoutMs: p.phaseTimeoutMs,
      freshForMs: p.freshForHours * 3600_000,
      turnstile: p.turnstile,
      media: {
        ...DEFAULT_MEDIA_SETTINGS,
        maxBytes: Number(settings.PROVISIONING_MEDIA_MAX_BYTES ?? DEFAULT_MEDIA_SETTINGS.maxBytes),
        timeoutMs: Number(settings.PROVISIONING_MEDIA_TIMEOUT_MS ?? DEFAULT_MEDIA_SETTINGS.timeoutMs),
        previewTranscriptions: Number(settings.PROVISIONING_PREVIEW_TRANSCRIPTIONS ?? DEFAULT_MEDIA_SETTINGS.previewTranscriptions),
      },
    },
    log: (level, message, extra) => infra.log(level, message, extra),
  };
}

export const provisioningBuildConsumer: Consumer<{ provisioning: ProvisioningDeps }> = {
  queue: BUILD_QUEUE,
  start: (infra, services) =>
    infra.queue.consume<BuildJobPayload>(BUILD_QUEUE, async (job) => runBuild(services.provisioning, job.payload.buildId), {
      concurrency: 2,
      maxAttempts: 3,
      backoffMs: 1000,
    }),
};

/**
 * Not a queue consumer: re-queues stale builds at start and then every half lease, on one worker at a time
 * (TickLeadership).
 */
export const provisioningSweepConsumer: Consumer<{ provisioning: ProvisioningDeps }> = {
  queue: `${BUILD_QUEUE}.sweep`,
  async start(infra, services): Promise<Subscription> {
    const deps = services.provisioning;
    const grace = Math.max(1000, Math.floor(deps.settings.leaseMs / 2));
    let running: Promise<unknown> = Promise.resolve();
    const tick = () => {
      running = infra.leadership
        .runExclusive(`${BUILD_QUEUE}.sweep`, () => requeueStaleBuilds(deps, grace))
        .catch((error) => deps.log('error', 'build sweep failed', error));
    };
    tick();
    const timer = setInterval(tick, grace);
    timer.unref();
    return {
      close: async () => {
        clearInterval(timer);
        await running;
      },
    };
  },
};
