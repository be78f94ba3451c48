/**
 * Document ingestion as a job (docs/contracts.md "Jobs", kind `document_ingestion`): progress through the pipeline's
 * steps (load, chunk, embed, store, optional graph extraction and summary), weighted by how long a step usually
 * takes, then completed or failed. Reporting is best effort: a store hiccup while reporting never fails a
 * document (the job catches up at its next state change); the terminal reports are retried first, since
 * nothing comes after them.
 */
import { retryReport } from '../jobs/retry-report';
import { isDomainError } from '../shared/errors';
import type { IngestionStep } from './ingestion-steps';
import type { KnowledgeDeps } from './knowledge-deps';

export const INGESTION_JOB_KIND = 'document_ingestion';

const STEP_LABELS: Record<string, string> = {
  load: 'Reading the file',
  chunk: 'Splitting the text into passages',
  embed: 'Computing embeddings',
  store: 'Writing passages to the index',
  graph: 'Extracting the knowledge graph',
  summary: 'Summarising the document',
};
/** Relative duration of a step (others count 1): extraction and embedding dominate. */
const STEP_WEIGHTS: Record<string, number> = { load: 2, embed: 4, graph: 3 };
/** Progress spent before the first step (picked up) and left for completion. */
const FIRST = 5;
const LAST = 95;

export const stepLabel = (id: string) => STEP_LABELS[id] ?? `Running ${id.replace(/[_-]/g, ' ')}`;

/** Where each step starts, in percent: the steps share 5-95 by weight. */
export function stepStarts(steps: readonly Pick<IngestionStep, 'id'>[]): Map<string, number> {
  const weights = steps.map((s) => STEP_WEIGHTS[s.id] ?? 1);
  const total = weights.reduce((a, b) => a + b, 0) || 1;
  const starts = new Map<string, number>();
  let done = 0;
  steps.forEach((s, i) => {
    starts.set(s.id, Math.round(FIRST + ((LAST - FIRST) * done) / total));
    done += weights[i];
  });
  return starts;
}

/** Job error code of a failure: the domain error code in lower case (`unsupported_media_type`...), else `internal`. */
export const jobErrorCode = (error: unknown) => (isDomainError(error) ? error.code.toLowerCase() : 'internal');

export function ingestionReporter(deps: KnowledgeDeps, jobId: string, steps: readonly IngestionStep[]) {
  const starts = stepStarts(steps);
  const report = async (what: string, call: (jobs: NonNullable<KnowledgeDeps['jobs']>) => Promise<unknown>) => {
    if (!deps.jobs) return;
    await call(deps.jobs).catch((e) => deps.log('warn', `ingestion job ${jobId}: ${what} not reported`, e));
  };
  return {
    step: (step: IngestionStep) =>
      report('progress', (j) => j.progress(jobId, { step: step.id, stepLabel: stepLabel(step.id), progress: starts.get(step.id) })),
    retrying: (detail: string) => report('retry', (j) => j.progress(jobId, { detail })),
    completed: (result: Record<string, unknown>, warnings: Record<string, string>) =>
      report('completion', (j) =>
        retryReport(() =>
          j.complete(jobId, {
            step: 'done',
            stepLabel: 'Ready for search',
            detail: Object.keys(warnings).length ? `Optional steps failed: ${Object.keys(warnings).join(', ')}` : null,
            result,
          }),
        ),
      ),
    failed: (error: unknown, message: string, retryable: boolean) =>
      report('failure', (j) =>
        retryReport(() => j.fail(jobId, { code: jobErrorCode(error), message, retryable }, { stepLabel: 'Processing failed' })),
      ),
    /** The document was deleted or re-queued (a newer job owns it): this job ends without a result. */
    cancelled: (message: string) =>
      report('cancellation', (j) =>
        retryReport(() => j.fail(jobId, { code: 'cancelled', message, retryable: false }, { stepLabel: 'Cancelled' })),
      ),
  };
}
