import { loadAgent } from '../agents/agent-access';
import { recordAudit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { DomainError } from '../shared/errors';
import type { PromptConfigVersion, SectionMode } from './prompt-config';
import type { PromptDeps } from './prompt-deps';
import { sectionAddress, type SectionInput, validateSections } from './prompt-sections';
import { checkVariableNamespaces } from './template';
import { type BumpType, formatVersion, nextVersionNumber } from './version-number';

const ref = (v: { id: string; versionMajor: number; versionMinor: number }) => ({
  id: v.id,
  versionMajor: v.versionMajor,
  versionMinor: v.versionMinor,
});

/**
 * POST /api/bots/:id/prompt-config-versions (permission `update`; spec 3.6): writes the given sections to the
 * draft and captures the whole customised draft as a new immutable version; live does not move. Saves of
 * one agent are serialised by the agent row lock, so concurrent saves become consecutive versions. Any
 * error leaves nothing written. Audit: `prompt_config.save`.
 */
export async function savePromptConfig(
  deps: PromptDeps,
  actor: Actor,
  agentId: string,
  input: { sections: SectionInput[]; bumpType?: BumpType; label?: string | null },
) {
  return deps.store.transaction(async (repos) => {
    const agent = await loadAgent(repos, actor, agentId, 'update', { lock: true });
    const sections = validateSections(input.sections, agent.tools);
    const now = deps.clock.now().toISOString();
    await repos.prompts.upsertDraft(agent.organizationId, agent.id, sections, now, actor.userId);
    const items = (await repos.prompts.draft(agent.id)).map(({ promptType, instanceRef, mode, content, prompt }) => ({
      promptType,
      instanceRef,
      mode,
      content,
      prompt,
    }));
    const newest = await repos.prompts.newestVersion(agent.id);
    const next = nextVersionNumber(newest && { major: newest.versionMajor, minor: newest.versionMinor }, input.bumpType ?? 'minor');
    const version: Omit<PromptConfigVersion, 'authorName' | 'sectionCount'> = {
      id: deps.ids.uuid(),
      agentId: agent.id,
      organizationId: agent.organizationId,
      versionMajor: next.major,
      versionMinor: next.minor,
      label: input.label ?? null,
      createdAt: now,
      // Spec 2.13: the initial v1.0 has no author (the save is still audited with the actor below).
      createdBy: newest ? actor.userId : null,
    };
    await repos.prompts.createVersion(version, items);
    await recordAudit(deps, repos, {
      organizationId: agent.organizationId,
      actorId: actor.userId,
      action: 'prompt_config.save',
      resourceType: 'agent',
      resourceId: agent.id,
      metadata: { versionId: version.id, version: formatVersion(next), sectionCount: items.length, savedSections: sections.length },
    });
    return { version: { ...ref(version), sectionCount: items.length }, published: false };
  });
}

/**
 * PUT /api/bots/:id/prompt-live (permission `update`): moves the live pointer to a version of this agent
 * (the newest when omitted); nothing else changes. A version of another agent is 404 and publishes nothing.
 * Audit: `prompt_config.publish`.
 */
export async function publishPromptConfig(deps: PromptDeps, actor: Actor, agentId: string, versionId?: string) {
  return deps.store.transaction(async (repos) => {
    const agent = await loadAgent(repos, actor, agentId, 'update', { lock: true });
    const target = versionId ? await repos.prompts.findVersion(agent.id, versionId) : await repos.prompts.newestVersion(agent.id);
    if (!target)
      throw new DomainError(
        'NOT_FOUND',
        versionId ? 'Config version not found for this agent' : 'This agent has no config version to publish',
      );
    const previous = await repos.prompts.live(agent.id);
    await repos.prompts.setLive(agent.id, target.id, deps.clock.now().toISOString(), actor.userId);
    await recordAudit(deps, repos, {
      organizationId: agent.organizationId,
      actorId: actor.userId,
      action: 'prompt_config.publish',
      resourceType: 'agent',
      resourceId: agent.id,
      metadata: {
        versionId: target.id,
        version: formatVersion({ major: target.versionMajor, minor: target.versionMinor }),
        previousVersionId: previous?.versionId ?? null,
      },
    });
    return {
      live: ref(target),
      previous: previous ? { id: previous.versionId, versionMajor: previous.versionMajor, versionMinor: previous.versionMinor } : null,
    };
  });
}

/** POST /api/bots/:id/prompt-sections/:type/reset (permission `update`): drops the draft override; live does not move. */
export async function resetPromptSection(deps: PromptDeps, actor: Actor, agentId: string, promptType: string, instanceRef?: string | null) {
  return deps.store.transaction(async (repos) => {
    const agent = await loadAgent(repos, actor, agentId, 'update', { lock: true });
    const address = sectionAddress(promptType, instanceRef, null);
    const removed = await repos.prompts.removeDraft(agent.id, address.promptType, address.instanceRef);
    return { ...address, removed };
  });
}

/**
 * PUT /api/bots/:id/prompt-configs/:type (permission `update`): the legacy single-section draft write. No
 * version is captured and nothing is published.
 */
export async function writeLegacySection(
  deps: PromptDeps,
  actor: Actor,
  agentId: string,
  promptType: string,
  input: { instanceRef?: string | null; mode?: SectionMode; content?: string | null; prompt?: string | null },
) {
  return deps.store.transaction(async (repos) => {
    const agent = await loadAgent(repos, actor, agentId, 'update', { lock: true });
    const address = sectionAddress(promptType, input.instanceRef, agent.tools);
    checkVariableNamespaces(address.promptType, [input.content, input.prompt]);
    const section = { ...address, mode: input.mode ?? 'fixed', content: input.content ?? null, prompt: input.prompt ?? null };
    const now = deps.clock.now().toISOString();
    await repos.prompts.upsertDraft(agent.organizationId, agent.id, [section], now, actor.userId);
    return { section: { ...section, updatedAt: now }, published: false };
  });
}
