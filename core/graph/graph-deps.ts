import type { BillingDeps } from '../billing/billing';
import type { JobReporter } from '../jobs/job-reporter';
import type { Clock } from '../ports/clock';
import type { GraphExtractor } from '../ports/graph-extractor';
import type { GraphStore } from '../ports/graph-store';
import type { IdGenerator } from '../ports/id-generator';
import type { JobQueue } from '../ports/job-queue';
import type { ImageDescriber } from '../ports/media-understanding';
import type { Store } from '../ports/store';

/** Queue of the graph optimisation jobs (payload: GraphJobPayload). */
export const GRAPH_QUEUE = 'graph.optimize';
export const GRAPH_JOB_KIND = 'graph_optimization';

export interface GraphJobPayload {
  organizationId: string;
  knowledgeBaseId: string;
  action: 'generate' | 'ai-resolve';
}

/**
 * Decides one suggestion (ai-resolve): a model when a chat provider is configured, else the deterministic
 * rule of core/graph/suggestions.ts (approve at or above the confidence threshold).
 */
export interface SuggestionJudge {
  readonly model: string | null;
  judge(suggestion: { type: string; reason: string; confidence: number; entities: string[] }): Promise<'approved' | 'rejected'>;
}

export interface GraphDeps {
  store: Store;
  graph: GraphStore;
  extractor: GraphExtractor;
  queue: JobQueue;
  clock: Clock;
  ids: IdGenerator;
  billing: BillingDeps;
  imageDescriber: ImageDescriber | null;
  judge: SuggestionJudge;
  jobs?: JobReporter;
  log: (level: 'debug' | 'info' | 'warn' | 'error', message: string, extra?: unknown) => void;
}
