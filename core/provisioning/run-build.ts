/**
 * The worker side of a build (spec 3.3): takes the build's lease, runs the phases from the one it is in
 * (queued, detecting, scraping, analyzing, provisioning, indexing), each bounded by the phase timeout, then
 * publishes the agent (ready) or compensates and fails. Redelivered or re-queued messages are harmless: a
 * build another worker holds, or one that ended, is left alone; a build whose worker died is resumed once its
 * lease expires (`requeueStaleBuilds`), and fails after `maxRuns` runs, so it never hangs.
 */
import { purgeKnowledgeBaseData } from '../knowledge/knowledge-bases';
import { isDomainError } from '../shared/errors';
import { uniqueSlug } from '../shared/slug';
import {
  BUILD_ERROR_RETRYABLE,
  BUILD_QUEUE,
  BuildFailure,
  type BuildPhase,
  type BuildRecord,
  FAILED_LABEL,
  PHASES,
  READY_LABEL,
} from './build';
import { analyze, detect, index, preflight, provision, renewLease, scrape } from './build-phases';
import type { ProvisioningDeps } from './provisioning-deps';

type PhaseRunner = (deps: ProvisioningDeps, build: BuildRecord, deadline: number) => Promise<BuildRecord>;

const RUNNERS: Record<Exclude<BuildPhase, 'queued' | 'indexing'>, PhaseRunner> = {
  detecting: detect,
  scraping: scrape,
  analyzing: analyze,
  provisioning: provision,
};

/** Which code a phase that ran out of time fails with. */
const TIMEOUT_CODE = {
  detecting: 'scrape_failed',
  scraping: 'scrape_failed',
  analyzing: 'analysis_failed',
  provisioning: 'internal',
} as const;

function withTimeout<T>(work: Promise<T>, ms: number, failure: () => BuildFailure): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(failure()), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

export async function runBuild(deps: ProvisioningDeps, buildId: string): Promise<void> {
  const now = deps.clock.now();
  const claimed = await deps.store.repos.provisioningBuilds.claim(
    buildId,
    now.toISOString(),
    new Date(now.getTime() + deps.settings.leaseMs).toISOString(),
  );
  if (!claimed) return;
  let build = claimed;
  // The lease is renewed in the background, so a slow phase never looks like a dead worker.
  const renewal = setInterval(
    () => void renewLease(deps, buildId).catch((error) => deps.log('warn', `build ${buildId}: lease renewal failed`, error)),
    Math.max(100, Math.floor(deps.settings.leaseMs / 3)),
  );
  try {
    if (build.runs > deps.settings.maxRuns) throw new BuildFailure('internal', 'The build was interrupted too many times');
    if (build.phase === 'queued') await preflight(deps, build);
    const start = build.phase === 'queued' ? 0 : PHASES.findIndex((p) => p.phase === build.phase);
    let indexed = true;
    for (const p of PHASES.slice(Math.max(0, start))) {
      build = (await renewLease(deps, build.id, p.phase)) ?? build;
      await deps.jobs.progress(build.id, { step: p.phase, stepLabel: p.label, progress: p.from, detail: null });
      const deadline = Date.now() + deps.settings.phaseTimeoutMs;
      if (p.phase === 'indexing') {
        const result = await index(deps, build, deadline);
        build = result.build;
        indexed = result.complete;
      } else {
        const phase = p.phase;
        build = await withTimeout(RUNNERS[phase](deps, build, deadline), deps.settings.phaseTimeoutMs, () => {
          const code = TIMEOUT_CODE[phase];
          return new BuildFailure(code, `The ${phase} phase took too long`);
        });
      }
    }
    await publish(deps, build, indexed);
  } catch (error) {
    await failBuild(deps, build, toFailure(error));
  } finally {
    clearInterval(renewal);
  }
}

function toFailure(error: unknown): BuildFailure {
  if (error instanceof BuildFailure) return error;
  if (isDomainError(error) && error.code === 'PLAN_LIMIT') return new BuildFailure('plan_limit', error.message);
  if (isDomainError(error) && error.code === 'INSUFFICIENT_CREDITS') return new BuildFailure('insufficient_credits', error.message);
  return new BuildFailure('internal', 'An unexpected error stopped the build');
}

/** Ready (spec 3.3): the agent goes live and public with a slug; indexing past its timeout still ends here. */
async function publish(deps: ProvisioningDeps, build: BuildRecord, indexed: boolean) {
  const at = deps.clock.now().toISOString();
  const analysis = build.state.analysis!;
  const slug = await deps.store.transaction(async (repos) => {
    const agent = await repos.agents.lockForUpdate(build.organizationId, build.agentId!);
    if (!agent) throw new BuildFailure('internal', 'The agent was deleted during the build');
    const slug =
      agent.slug ??
      (await uniqueSlug(
        analysis.name,
        (s) => repos.agents.slugExists(s),
        () => deps.ids.secret(8).replace(/[^a-z0-9]/gi, 'x'),
      ));
    await repos.agents.update(build.organizationId, agent.id, {
      status: 'published',
      isDraft: false,
      publishedAt: agent.publishedAt ?? at,
      slug,
      distribution: agent.distribution ?? { require_org_membership: false, allowed_group_ids: null },
      updatedAt: at,
    });
    await repos.provisioningBuilds.update(build.id, { status: 'ready', agentSlug: slug, finishedAt: at, leaseUntil: null }, at);
    return slug;
  });
  const warning = build.state.warning ?? (indexed ? undefined : 'Indexing continues in the background; answers improve in a few minutes');
  await deps.jobs.complete(build.id, {
    step: 'ready',
    stepLabel: READY_LABEL,
    detail: null,
    body: { agentSlug: slug, starterQuestions: analysis.starterQuestions, ...(warning ? { warning } : {}) },
    result: { agentId: build.agentId, agentSlug: slug, knowledgeBaseId: build.knowledgeBaseId },
  });
}

/** Compensation: what the build created is removed (no half-made agent or knowledge base stays visible), then failed. */
export async function failBuild(deps: ProvisioningDeps, build: BuildRecord, failure: BuildFailure) {
  const at = deps.clock.now().toISOString();
  const repos = deps.store.repos;
  try {
    if (build.agentId) await repos.agents.softDelete(build.organizationId, build.agentId, at);
    if (build.knowledgeBaseId && (await repos.knowledgeBases.delete(build.organizationId, build.knowledgeBaseId)))
      await purgeKnowledgeBaseData(deps.sources.knowledge, build.organizationId, build.knowledgeBaseId);
  } catch (error) {
    deps.log('error', `build ${build.id}: compensation failed`, error);
  }
  await repos.provisioningBuilds.update(build.id, { status: 'failed', finishedAt: at, leaseUntil: null }, at);
  deps.log(failure.code === 'internal' ? 'error' : 'info', `build ${build.id} failed: ${failure.code}`, { message: failure.message });
  await deps.jobs.fail(
    build.id,
    { code: failure.code, message: failure.message, retryable: BUILD_ERROR_RETRYABLE[failure.code] },
    { step: 'failed', stepLabel: FAILED_LABEL, detail: build.phase === 'queued' ? null : `during ${build.phase}` },
  );
}

/** Builds nobody runs (the queue lost them, their worker died): queued again; the lease keeps this harmless. */
export async function requeueStaleBuilds(deps: ProvisioningDeps, graceMs: number): Promise<number> {
  const before = new Date(deps.clock.now().getTime() - graceMs).toISOString();
  const stale = await deps.store.repos.provisioningBuilds.listStale(before, 50);
  for (const build of stale) await deps.queue.enqueue(BUILD_QUEUE, { buildId: build.id }, { jobId: `${build.id}-r${build.runs}` });
  return stale.length;
}
