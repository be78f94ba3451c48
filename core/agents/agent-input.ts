import type { Repositories } from '../ports/repositories';
import type { Agent, AgentPatch, AgentTool, MultimodalConfig, VoiceSettings } from './agent';
import { snapshotOf } from './agent-view';
import type { MoveResult, PublishingMove } from './publishing-state';

/** Fields accepted on create and update (spec 2.3); the contract schema enforces the limits. */
export interface AgentInput {
  name?: string;
  description?: string;
  model?: string;
  systemPrompt?: string | null;
  knowledgeBaseIds?: string[];
  isDraft?: boolean;
  streamingEnabled?: boolean;
  fileUploadsEnabled?: boolean;
  voiceEnabled?: boolean;
  voiceSettings?: VoiceSettings | null;
  multimodalConfig?: MultimodalConfig | null;
  tools?: AgentTool[];
  templateVariables?: Record<string, unknown>[];
  /** Notes of the version this change creates (auto-generated when omitted). */
  notes?: string;
}

/** Configuration fields an update may set (workflow fields move only through the state machine). */
export const CONFIG_FIELDS = [
  'name',
  'description',
  'model',
  'systemPrompt',
  'streamingEnabled',
  'fileUploadsEnabled',
  'voiceEnabled',
  'voiceSettings',
  'multimodalConfig',
  'tools',
  'templateVariables',
] as const;

export function configPatch(input: AgentInput): AgentPatch {
  const patch: Record<string, unknown> = {};
  for (const f of CONFIG_FIELDS) if (input[f] !== undefined) patch[f] = input[f];
  return patch as AgentPatch;
}

/** The workflow columns that go with a state-machine result. */
export function statusPatch(current: Agent, move: PublishingMove, result: MoveResult, now: string, actorId: string): AgentPatch {
  const patch: AgentPatch = { status: result.status, isDraft: result.isDraft };
  if (result.reviewFeedback !== undefined) patch.reviewFeedback = result.reviewFeedback;
  if (result.status === 'pending_review' && current.status !== 'pending_review') patch.submittedAt = now;
  if (move === 'approve' || move === 'reject') {
    patch.reviewedAt = now;
    patch.reviewedBy = actorId;
  }
  if (result.status === 'published' && current.status !== 'published') patch.publishedAt = now;
  return patch;
}

/** Appends the next numbered version snapshot (spec 2.4); the caller holds the agent row lock. */
export async function recordVersion(
  repos: Repositories,
  deps: { ids: { uuid(): string } },
  agent: Agent,
  knowledgeBaseIds: string[],
  notes: string,
  at: string,
  userId: string,
) {
  const version = (await repos.agentVersions.latestNumber(agent.id)) + 1;
  await repos.agentVersions.add({
    id: deps.ids.uuid(),
    agentId: agent.id,
    organizationId: agent.organizationId,
    version,
    changes: snapshotOf(agent, knowledgeBaseIds),
    notes,
    createdAt: at,
    createdBy: userId,
  });
  return version;
}
