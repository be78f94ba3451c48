/**
 * The work of each phase of a build. A phase reads what earlier phases stored in the build's state and
 * returns the build with its own output stored, so a resumed build re-runs only the phase it was in.
 * Provisioning creates the knowledge base, the draft agent and the build's references in one transaction.
 */
import { insertAgent } from '../agents/create-agent';
import type { Actor } from '../identity/actor';
import { ingestText } from '../knowledge/ingest-text';
import { createKnowledgeBase } from '../knowledge/knowledge-bases';
import { isDomainError } from '../shared/errors';
import type { SourceItemContent } from '../sources/source-plugin';
import { sourceContext } from '../sources/sources-deps';
import { analyzeOffline } from './analysis';
import { BuildFailure, type BuildPhase, type BuildRecord, type BuildState, phaseProgress } from './build';
import { defaultToolsFor } from './intent-tools';
import { transcribeMedia } from './media-transcripts';
import { analysisModelOf, analyzeWithModel } from './model-analysis';
import type { ProvisioningDeps } from './provisioning-deps';

/** The user behind the API key, acting as an admin of the key's organization (keys are issued by owners and admins). */
export const keyActor = (build: BuildRecord): Actor => ({
  userId: build.createdBy,
  email: '',
  displayName: 'API key',
  platformRole: 'user',
  organizationId: build.organizationId,
  orgRole: 'admin',
});

export async function saveState(deps: ProvisioningDeps, build: BuildRecord, state: BuildState): Promise<BuildRecord> {
  return (await deps.store.repos.provisioningBuilds.update(build.id, { state }, deps.clock.now().toISOString())) ?? build;
}

/** Pre-flight (spec 3.3): plan limits and credits fail the build, never the request. */
export async function preflight(deps: ProvisioningDeps, build: BuildRecord): Promise<void> {
  const repos = deps.store.repos;
  const org = await repos.organizations.findById(build.organizationId);
  if (!org) throw new BuildFailure('internal', 'The organization no longer exists');
  if ((await repos.agents.countLive(org.id)) >= org.plan.agents)
    throw new BuildFailure('plan_limit', `Your plan allows ${org.plan.agents} agents`);
  if ((await repos.knowledgeBases.count(org.id)) >= org.plan.knowledgeBases)
    throw new BuildFailure('plan_limit', `Your plan allows ${org.plan.knowledgeBases} knowledge bases`);
  const wallet = await repos.wallets.find(org.id);
  if (wallet && wallet.balanceUsd <= 0) throw new BuildFailure('insufficient_credits', 'The organization has no credits left');
}

export async function detect(deps: ProvisioningDeps, build: BuildRecord): Promise<BuildRecord> {
  if (!deps.sources.registry.has(build.sourceType)) throw new BuildFailure('unsupported_url', `No reader for ${build.sourceType}`);
  await deps.jobs.progress(build.id, { body: { platform: build.sourceType } });
  return build;
}

const scrapeFailure = (error: unknown): BuildFailure => {
  if (error instanceof BuildFailure) return error;
  if (isDomainError(error)) {
    if (error.code === 'UNSUPPORTED_URL') return new BuildFailure('unsupported_url', error.message);
    if (error.code === 'NOT_FOUND') return new BuildFailure('private_or_empty', error.message);
    if (error.code === 'RATE_LIMITED' || /429/.test(error.message)) return new BuildFailure('rate_limited', error.message);
  }
  return new BuildFailure('scrape_failed', error instanceof Error ? error.message : 'The channel could not be read');
};

export async function scrape(deps: ProvisioningDeps, build: BuildRecord, deadline: number): Promise<BuildRecord> {
  const registry = deps.sources.registry;
  const plugin = registry.get(build.sourceType);
  const max = build.mode === 'preview' ? deps.settings.previewItems : deps.settings.fullItems;
  let options: Record<string, unknown>;
  try {
    options = registry.validateOptions(build.sourceType, { maxItems: max });
  } catch {
    options = registry.validateOptions(build.sourceType, {});
  }
  const ctx = sourceContext(deps.sources, build.sourceType);
  const items: SourceItemContent[] = [];
  let title: string | undefined;
  try {
    const listing = await plugin.listItems({ url: build.url, options }, ctx);
    title = listing.title ?? listing.author;
    const listed = listing.items.slice(0, max);
    for (const [i, entry] of listed.entries()) {
      items.push(entry.item ?? (await plugin.fetchItem(entry, { url: build.url, options }, ctx)));
      await deps.jobs.progress(build.id, {
        progress: phaseProgress('scraping', i + 1, listed.length),
        detail: `${i + 1} of ${listed.length} items`,
      });
    }
  } catch (error) {
    throw scrapeFailure(error);
  }
  const media = await transcribeMedia(deps.transcription, deps.sources.fetcher, deps.settings.media, {
    organizationId: build.organizationId,
    buildId: build.id,
    mode: build.mode,
    items,
    deadline,
    onProgress: async (done, total) => void (await deps.jobs.progress(build.id, { detail: `${done} of ${total} media transcribed` })),
  });
  if (media.warning) deps.log('warn', 'provisioning media not transcribed', { buildId: build.id, warning: media.warning });
  const readable = media.items.filter((i) => i.text.trim());
  if (!readable.length) throw new BuildFailure('private_or_empty', 'The channel has no public content to learn from');
  const channelTitle = title?.trim() || new URL(build.url).pathname.replace(/^\/+/, '') || build.url;
  const chars = readable.reduce((n, i) => n + i.text.length, 0);
  const thin = chars < deps.settings.thinContentChars ? 'Little content was found; the agent may answer only a few questions' : undefined;
  const warning = [media.warning, thin].filter(Boolean).join('; ') || undefined;
  await deps.jobs.progress(build.id, { body: { platform: build.sourceType, channelTitle, ...(warning ? { warning } : {}) } });
  return saveState(deps, build, { ...build.state, items: readable, channelTitle, ...(warning ? { warning } : {}) });
}

export async function analyze(deps: ProvisioningDeps, build: BuildRecord): Promise<BuildRecord> {
  const input = {
    channelTitle: build.state.channelTitle ?? '',
    platform: build.sourceType,
    intent: build.intent,
    items: build.state.items ?? [],
  };
  const model = deps.analysis ? analysisModelOf(build.model, deps.analysis.defaultModel) : null;
  if (deps.analysis && model) {
    const result = await analyzeWithModel(deps.analysis, { ...input, organizationId: build.organizationId, buildId: build.id, model });
    if (result.analysis) return saveState(deps, build, { ...build.state, analysis: result.analysis });
    // never fail the build over the model: the offline analysis stands in, and the event says so
    deps.log('warn', 'provisioning analysis fell back to offline', { buildId: build.id, model, reason: result.reason });
    const warning = [build.state.warning, `The agent was described offline because ${result.reason}`].filter(Boolean).join('; ');
    await deps.jobs.progress(build.id, { body: { platform: build.sourceType, channelTitle: input.channelTitle, warning } });
    return saveState(deps, build, { ...build.state, analysis: analyzeOffline(input), warning });
  }
  return saveState(deps, build, { ...build.state, analysis: analyzeOffline(input) });
}

export async function provision(deps: ProvisioningDeps, build: BuildRecord): Promise<BuildRecord> {
  if (build.agentId && build.knowledgeBaseId) return build;
  const analysis = build.state.analysis;
  if (!analysis) throw new BuildFailure('internal', 'The analysis is missing');
  const actor = keyActor(build);
  const knowledge = deps.sources.knowledge;
  try {
    return await deps.store.transaction(async (repos) => {
      const kb = await createKnowledgeBase(knowledge, actor, { name: analysis.name, description: analysis.description });
      const { agent } = await insertAgent(deps.agents, repos, actor, build.organizationId, {
        name: analysis.name,
        description: analysis.description,
        model: build.model ?? undefined,
        systemPrompt: analysis.systemPrompt,
        tools: defaultToolsFor(build.intent),
        isDraft: true,
        knowledgeBaseIds: [kb.id],
        notes: `Provisioned from ${build.url} (${build.id})`,
      });
      const at = deps.clock.now().toISOString();
      return (await repos.provisioningBuilds.update(build.id, { agentId: agent.id, knowledgeBaseId: kb.id }, at)) ?? build;
    });
  } catch (error) {
    if (isDomainError(error) && error.code === 'PLAN_LIMIT') throw new BuildFailure('plan_limit', error.message);
    throw error;
  }
}

/** Queues one document per item (once), then follows them until done or the phase deadline, ticking progress. */
export async function index(
  deps: ProvisioningDeps,
  build: BuildRecord,
  deadline: number,
): Promise<{ build: BuildRecord; complete: boolean }> {
  const kbId = build.knowledgeBaseId;
  if (!kbId) throw new BuildFailure('internal', 'The knowledge base is missing');
  let current = build;
  if (!current.state.documentIds) {
    const documentIds: string[] = [];
    for (const item of current.state.items ?? []) {
      try {
        const r = await ingestText(deps.sources.knowledge, {
          organizationId: build.organizationId,
          knowledgeBaseId: kbId,
          title: item.title,
          text: item.text,
          contentType: item.mimeType,
          metadata: { url: item.url, itemKey: item.key, buildId: build.id },
          createdBy: build.createdBy,
        });
        documentIds.push(r.document.id);
      } catch (error) {
        if (!(isDomainError(error) && error.code === 'VALIDATION')) throw new BuildFailure('indexing_failed', (error as Error).message);
      }
    }
    current = await saveState(deps, current, { ...current.state, documentIds });
  }
  const ids = current.state.documentIds ?? [];
  let lastDone = -1;
  let lastTick = 0;
  for (;;) {
    const docs = await deps.store.repos.documents.findMany(build.organizationId, ids);
    const done = docs.filter((d) => d.processingStatus === 'completed').length;
    const failed = docs.filter((d) => d.processingStatus === 'failed').length;
    if (ids.length && failed === ids.length) throw new BuildFailure('indexing_failed', 'No item could be indexed');
    const now = Date.now();
    if (done !== lastDone || now - lastTick >= 2000) {
      // A tick in a slow phase (spec 4.13) and a renewed lease, so another worker does not take the build over.
      await deps.jobs.progress(build.id, {
        progress: phaseProgress('indexing', done, ids.length),
        detail: `${done} of ${ids.length} items indexed`,
      });
      await renewLease(deps, build.id);
      lastDone = done;
      lastTick = now;
    }
    if (done + failed >= ids.length) return { build: current, complete: true };
    if (now >= deadline) return { build: current, complete: false };
    await new Promise((r) => setTimeout(r, deps.settings.indexPollMs));
  }
}

export async function renewLease(deps: ProvisioningDeps, buildId: string, phase?: BuildPhase) {
  const now = deps.clock.now();
  return deps.store.repos.provisioningBuilds.update(
    buildId,
    { leaseUntil: new Date(now.getTime() + deps.settings.leaseMs).toISOString(), ...(phase ? { phase } : {}) },
    now.toISOString(),
  );
}
