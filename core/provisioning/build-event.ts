/** The ProvisioningEvent of spec 2.12, rendered from the build's job row (one shape for SSE, poll and webhook). */
import type { JobKind } from '../jobs/job-kinds';
import { BUILD_JOB_KIND } from './build';

export const buildJobKind: JobKind = {
  kind: BUILD_JOB_KIND,
  toEvent: (job) => {
    const status = job.status === 'completed' ? 'ready' : job.status === 'failed' ? 'failed' : (job.step ?? 'queued');
    return {
      buildId: job.id,
      status,
      progress: job.progress,
      step: job.step ?? status,
      stepLabel: job.stepLabel ?? '',
      ...(job.detail ? { detail: job.detail } : {}),
      ...job.body,
      ...(job.error ? { error: job.error } : {}),
      emittedAt: job.emittedAt,
    };
  },
  // Each phase the build enters goes to the webhook once, not only the terminal one (spec 6 leaves it open);
  // progress ticks inside a phase do not.
  sendsWebhook: (_job, phaseChanged) => phaseChanged,
};
