import { loadAgent } from '../agents/agent-access';
import type { Actor } from '../identity/actor';
import { DomainError } from '../shared/errors';
import { type LivePointer, type PromptConfigVersion, type PromptSection, sectionKey } from './prompt-config';
import type { PromptDeps } from './prompt-deps';
import { sameSections, sectionsEqual } from './prompt-sections';
import { isInstanced, PLATFORM_DEFAULTS, PROMPT_TYPES } from './prompt-types';

const liveView = (l: LivePointer | null) =>
  l && {
    id: l.versionId,
    versionMajor: l.versionMajor,
    versionMinor: l.versionMinor,
    publishedAt: l.publishedAt,
    publishedBy: l.publishedBy,
    publishedByName: l.publishedByName,
  };

const versionView = (v: PromptConfigVersion, live: LivePointer | null, newestId: string | undefined) => ({
  id: v.id,
  versionMajor: v.versionMajor,
  versionMinor: v.versionMinor,
  label: v.label,
  createdAt: v.createdAt,
  createdBy: v.createdBy,
  authorName: v.authorName,
  sectionCount: v.sectionCount,
  isLive: live?.versionId === v.id,
  isNewest: v.id === newestId,
});

const itemView = ({ promptType, instanceRef, mode, content, prompt }: PromptSection) => ({
  promptType,
  instanceRef,
  mode,
  content,
  prompt,
});

/** GET /api/bots/:id/prompt-config-versions (permission `read`): newest first, with the live descriptor. */
export async function listPromptConfigVersions(deps: PromptDeps, actor: Actor, agentId: string, limit: number) {
  const repos = deps.store.repos;
  const agent = await loadAgent(repos, actor, agentId, 'read');
  const [{ items, total }, live, newest] = await Promise.all([
    repos.prompts.listVersions(agent.id, limit),
    repos.prompts.live(agent.id),
    repos.prompts.newestVersion(agent.id),
  ]);
  return { versions: items.map((v) => versionView(v, live, newest?.id)), total, live: liveView(live) };
}

/** GET /api/bots/:id/prompt-config-versions/:versionId (permission `read`): the version and its items. */
export async function getPromptConfigVersion(deps: PromptDeps, actor: Actor, agentId: string, versionId: string) {
  const repos = deps.store.repos;
  const agent = await loadAgent(repos, actor, agentId, 'read');
  const version = await repos.prompts.findVersion(agent.id, versionId);
  if (!version) throw new DomainError('NOT_FOUND', 'Config version not found for this agent');
  const [items, live, newest] = await Promise.all([
    repos.prompts.versionItems(version.id),
    repos.prompts.live(agent.id),
    repos.prompts.newestVersion(agent.id),
  ]);
  return { version: versionView(version, live, newest?.id), items: items.map(itemView) };
}

/**
 * GET /api/bots/:id/prompt-sections (permission `read`): every non-instanced type plus every instanced
 * section that has a draft or a live item. `isCustomised`: the draft overrides the platform default;
 * `isUnpublished`: what the draft would give differs from what live visitors get.
 */
export async function listPromptSections(deps: PromptDeps, actor: Actor, agentId: string) {
  const repos = deps.store.repos;
  const agent = await loadAgent(repos, actor, agentId, 'read');
  const [draft, live, newest] = await Promise.all([
    repos.prompts.draft(agent.id),
    repos.prompts.live(agent.id),
    repos.prompts.newestVersion(agent.id),
  ]);
  const [liveItems, newestItems] = await Promise.all([
    live ? repos.prompts.versionItems(live.versionId) : Promise.resolve([] as PromptSection[]),
    newest ? repos.prompts.versionItems(newest.id) : Promise.resolve([] as PromptSection[]),
  ]);
  const draftByKey = new Map(draft.map((s) => [sectionKey(s), s]));
  const liveByKey = new Map(liveItems.map((s) => [sectionKey(s), s]));
  const addresses = new Map<string, { promptType: PromptSection['promptType']; instanceRef: string | null }>();
  for (const type of PROMPT_TYPES)
    if (!isInstanced(type)) addresses.set(sectionKey({ promptType: type, instanceRef: null }), { promptType: type, instanceRef: null });
  for (const s of [...draft, ...liveItems]) addresses.set(sectionKey(s), { promptType: s.promptType, instanceRef: s.instanceRef });
  const sections = [...addresses.entries()].map(([key, address]) => {
    const d = draftByKey.get(key);
    const l = liveByKey.get(key);
    return {
      ...address,
      mode: d?.mode ?? 'fixed',
      content: d ? d.content : PLATFORM_DEFAULTS[address.promptType],
      prompt: d?.prompt ?? null,
      isCustomised: !!d,
      isUnpublished: d ? !sectionsEqual(d, l) : !!l,
      updatedAt: d?.updatedAt ?? null,
    };
  });
  return {
    sections,
    draftDiffersFromNewest: !sameSections(draft, newestItems),
    live: liveView(live),
    newest: newest ? { id: newest.id, versionMajor: newest.versionMajor, versionMinor: newest.versionMinor } : null,
  };
}
