import { audit } from '../audit/audit-log';
import type { Actor } from '../identity/actor';
import { canOnResource } from '../identity/policy';
import { assertModelAvailable } from '../models/model-availability';
import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import type { Agent } from './agent';
import { isReviewer, loadAgent } from './agent-access';
import type { AgentDeps } from './agent-deps';
import { type AgentInput, CONFIG_FIELDS, configPatch, recordVersion, statusPatch } from './agent-input';
import { knowledgeReady, validateKnowledgeBaseIds } from './agent-knowledge';
import type { AgentSnapshot } from './agent-version';
import { toAgentView } from './agent-view';
import { auditPublishWithoutReview } from './publish-audit';
import { applyMove } from './publishing-state';

const describeChange = (input: AgentInput) => {
  const fields = [...CONFIG_FIELDS, 'knowledgeBaseIds', 'isDraft'].filter((f) => (input as Record<string, unknown>)[f] !== undefined);
  return fields.length ? `Updated ${fields.join(', ')}` : 'Saved without changes';
};

/**
 * Applies a partial update to a locked agent: only supplied fields change; `knowledgeBaseIds` replaces the
 * whole set. The result must satisfy the readiness rule when it is (or becomes) live. Records a version.
 */
async function applyChanges(
  deps: AgentDeps,
  repos: Repositories,
  actor: Actor,
  agent: Agent,
  input: AgentInput,
  knowledgeBaseIds: string[] | undefined,
  notes: string,
) {
  const now = deps.clock.now().toISOString();
  if (knowledgeBaseIds) await repos.agentKnowledge.replaceLinks(agent.organizationId, agent.id, knowledgeBaseIds, now);
  let patch = { ...configPatch(input), updatedAt: now };
  const goesLive = input.isDraft === false || (input.isDraft === undefined && knowledgeBaseIds !== undefined && !agent.isDraft);
  if (input.isDraft === true || goesLive) {
    const move = goesLive ? 'mark_live' : 'mark_draft';
    const ready = goesLive ? await knowledgeReady(repos, agent.id) : true;
    const result = applyMove(agent.status, move, { reviewer: isReviewer(actor), knowledgeReady: ready });
    patch = { ...patch, ...statusPatch(agent, move, result, now, actor.userId) };
  }
  const updated = await repos.agents.update(agent.organizationId, agent.id, patch);
  if (!updated) throw new DomainError('NOT_FOUND', 'Agent not found');
  await auditPublishWithoutReview(deps, repos, actor, updated, agent.status);
  const links = knowledgeBaseIds ?? (await repos.agentKnowledge.linkedIds(agent.id));
  const version = await recordVersion(repos, deps, updated, links, notes, now, actor.userId);
  return { agent: updated, knowledgeBaseIds: links, version };
}

/** PUT /api/bots/:id (permission `edit`). Every update creates a version snapshot. */
export async function updateAgent(deps: AgentDeps, actor: Actor, id: string, input: AgentInput) {
  return deps.store.transaction(async (repos) => {
    const agent = await loadAgent(repos, actor, id, 'edit', { lock: true });
    // Only a change of model is checked: an agent whose provider went away can still be edited otherwise.
    if (input.model !== undefined && input.model !== agent.model) assertModelAvailable(deps.models, input.model);
    const ids = input.knowledgeBaseIds && (await validateKnowledgeBaseIds(repos, actor, agent.organizationId, input.knowledgeBaseIds));
    const { agent: updated, knowledgeBaseIds } = await applyChanges(
      deps,
      repos,
      actor,
      agent,
      input,
      ids,
      input.notes ?? describeChange(input),
    );
    await audit(deps, repos, actor.userId, agent.organizationId, 'agent.update', ['agent', agent.id], {
      fields: Object.keys(input).filter((k) => k !== 'notes'),
      ...(ids ? { knowledgeBaseIds } : {}),
    });
    return toAgentView(updated, knowledgeBaseIds);
  });
}

/**
 * POST /api/bots/:id/versions/:version/revert (permission `edit`): restores the configuration of an earlier
 * version as a new version; history is never rewritten. The workflow state (isDraft, status) is not restored.
 * Knowledge bases of the snapshot that no longer exist or that the caller can no longer edit are skipped.
 */
export async function revertAgent(deps: AgentDeps, actor: Actor, id: string, versionNumber: number, notes?: string) {
  return deps.store.transaction(async (repos) => {
    const agent = await loadAgent(repos, actor, id, 'edit', { lock: true });
    const target = await repos.agentVersions.find(agent.id, versionNumber);
    if (!target) throw new DomainError('NOT_FOUND', `Version ${versionNumber} of this agent not found`);
    const snap: AgentSnapshot = target.changes;
    const found = await repos.agentKnowledge.findLinkable(agent.organizationId, actor.userId, snap.knowledgeBaseIds ?? []);
    const usable = new Set(found.filter((kb) => canOnResource(actor.orgRole, 'edit', kb.grants)).map((kb) => kb.id));
    const ids = (snap.knowledgeBaseIds ?? []).filter((kbId) => usable.has(kbId));
    const skipped = (snap.knowledgeBaseIds ?? []).length - ids.length;
    const input = Object.fromEntries(CONFIG_FIELDS.map((f) => [f, (snap as unknown as Record<string, unknown>)[f] ?? null])) as AgentInput;
    input.name = snap.name;
    input.description = snap.description ?? '';
    input.model = snap.model;
    for (const f of ['streamingEnabled', 'fileUploadsEnabled', 'voiceEnabled'] as const) input[f] = Boolean(snap[f]);
    input.tools = (snap.tools ?? []) as AgentInput['tools'];
    input.templateVariables = (snap.templateVariables ?? []) as AgentInput['templateVariables'];
    const result = await applyChanges(deps, repos, actor, agent, input, ids, notes ?? `Reverted to version ${versionNumber}`);
    const message =
      `Agent reverted to version ${versionNumber} as version ${result.version}` +
      (skipped ? `; ${skipped} knowledge base(s) of that version are no longer available and were not relinked` : '');
    return { bot: toAgentView(result.agent, result.knowledgeBaseIds), message, version: result.version };
  });
}
