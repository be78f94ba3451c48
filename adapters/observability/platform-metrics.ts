import { Counter, Gauge, Histogram, Registry } from 'prom-client';

import type { BillingEvent } from '../../core/billing/wallet';

export type JobOutcome = 'completed' | 'failed' | 'retried';
export type RateLimitScope = 'ip' | 'principal' | 'unavailable';

/**
 * The platform's own Prometheus series (beside the api's per-route latency and process metrics): queue depth and
 * job outcomes, ingestion rates, model tokens and cost, gateway rate-limit refusals. One per process, merged
 * into the api's `/metrics`.
 */
export interface PlatformMetrics {
  registry: Registry;
  jobFinished(queue: string, outcome: JobOutcome, seconds: number): void;
  documentIngested(outcome: string, chunks: number): void;
  charged(event: BillingEvent): void;
  rateLimited(scope: RateLimitScope): void;
}

/** `depths` is asked at each scrape (the job queue's own count, e.g. the broker's). */
export function createPlatformMetrics(depths: () => Promise<Record<string, number>>): PlatformMetrics {
  const registry = new Registry();
  const registers = [registry];
  new Gauge({
    name: 'jobs_queue_depth',
    help: 'Jobs waiting in each queue (not yet running)',
    labelNames: ['queue'],
    registers,
    async collect() {
      this.reset();
      const byQueue = await depths().catch(() => ({}) as Record<string, number>);
      for (const [queue, depth] of Object.entries(byQueue)) this.set({ queue }, depth);
    },
  });
  const jobs = new Counter({
    name: 'jobs_total',
    help: 'Finished job attempts per queue: completed, retried (will run again) or failed (out of attempts)',
    labelNames: ['queue', 'outcome'],
    registers,
  });
  const jobDuration = new Histogram({
    name: 'job_duration_seconds',
    help: 'Time one job attempt ran, per queue and outcome',
    labelNames: ['queue', 'outcome'],
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60, 300],
    registers,
  });
  const documents = new Counter({
    name: 'ingestion_documents_total',
    help: 'Documents through the ingestion pipeline, by outcome (completed, failed, retrying, skipped)',
    labelNames: ['outcome'],
    registers,
  });
  const chunks = new Counter({ name: 'ingestion_chunks_total', help: 'Chunks indexed by completed ingestions', registers });
  const tokens = new Counter({
    name: 'model_tokens_total',
    help: 'Tokens billed per provider, model, billing kind (chat, document_processing...) and direction (prompt, completion)',
    labelNames: ['provider', 'model', 'kind', 'direction'],
    registers,
  });
  const cost = new Counter({
    name: 'model_cost_usd_total',
    help: 'Cost in USD per provider and model: what the provider charges (provider) and what wallets were charged (billed)',
    labelNames: ['provider', 'model', 'kind', 'side'],
    registers,
  });
  const limited = new Counter({
    name: 'gateway_rate_limited_total',
    help: 'Requests the gateway refused for rate limits: per client address (ip), per user or API key (principal), or store unavailable',
    labelNames: ['scope'],
    registers,
  });
  return {
    registry,
    jobFinished(queue, outcome, seconds) {
      jobs.inc({ queue, outcome });
      jobDuration.observe({ queue, outcome }, seconds);
    },
    documentIngested(outcome, chunkCount) {
      documents.inc({ outcome });
      if (chunkCount > 0) chunks.inc(chunkCount);
    },
    charged(event) {
      if (!event.model) return; // top-ups and other money moves are not model use
      const labels = { provider: providerOf(event.model), model: event.model, kind: event.kind };
      if (event.promptTokens > 0) tokens.inc({ ...labels, direction: 'prompt' }, event.promptTokens);
      if (event.completionTokens > 0) tokens.inc({ ...labels, direction: 'completion' }, event.completionTokens);
      cost.inc({ ...labels, side: 'provider' }, Math.max(0, event.providerCostUsd));
      cost.inc({ ...labels, side: 'billed' }, Math.max(0, event.costUsd));
    },
    rateLimited(scope) {
      limited.inc({ scope });
    },
  };
}

/** Model ids are `provider/name`; a bare name belongs to no known provider. */
function providerOf(model: string): string {
  const slash = model.indexOf('/');
  return slash > 0 ? model.slice(0, slash) : 'unknown';
}
