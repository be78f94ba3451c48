/**
 * The job contract over real adapters without HTTP: the knowledge harness (in-memory PGlite, migrated) plus an
 * in-process event bus and JobDeps; the knowledge use cases report through the same tracker.
 */
import { InProcessEventBus } from '../../adapters/memory/in-process.event-bus';
import { DEFAULT_JOB_SETTINGS, type JobDeps, type JobNotice, jobTopic } from '../../core/jobs/job-deps';
import { JobKindRegistry } from '../../core/jobs/job-kinds';
import { JobTracker } from '../../core/jobs/job-tracker';
import { createKnowledgeHarness, type KnowledgeHarness } from '../knowledge/knowledge-harness';

export interface JobsHarness {
  knowledge: KnowledgeHarness;
  deps: JobDeps;
  tracker: JobTracker;
  bus: InProcessEventBus;
  /** Collects every notice published for the job (subscribe before the job changes). */
  watch(jobId: string): Promise<{ notices: JobNotice[]; close(): Promise<void> }>;
  close(): Promise<void>;
}

export async function createJobsHarness(kinds = new JobKindRegistry()): Promise<JobsHarness> {
  const knowledge = await createKnowledgeHarness();
  const bus = new InProcessEventBus({ logger: { warn: () => undefined } });
  const deps: JobDeps = {
    store: knowledge.deps.store,
    clock: knowledge.deps.clock,
    ids: knowledge.deps.ids,
    bus,
    queue: knowledge.queue,
    kinds,
    settings: DEFAULT_JOB_SETTINGS,
    log: () => undefined,
  };
  const tracker = new JobTracker(deps);
  knowledge.deps.jobs = tracker;
  return {
    knowledge,
    deps,
    tracker,
    bus,
    async watch(jobId) {
      const notices: JobNotice[] = [];
      const sub = await bus.subscribe<JobNotice>(jobTopic(jobId), (e) => void notices.push(e.payload));
      return { notices, close: () => sub.close() };
    },
    async close() {
      await bus.close();
      await knowledge.close();
    },
  };
}

export async function waitFor<T>(
  probe: () => T | null | undefined | false | Promise<T | null | undefined | false>,
  what: string,
): Promise<T> {
  const until = Date.now() + 30_000;
  for (;;) {
    const v = await probe();
    if (v) return v;
    if (Date.now() > until) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}
