import type { Agent } from './agent';
import type { AgentSnapshot } from './agent-version';

/** The configuration fields of an agent: what a version snapshot captures and what revert restores. */
function configurationOf(a: Agent) {
  return {
    name: a.name,
    description: a.description,
    model: a.model,
    systemPrompt: a.systemPrompt,
    isDraft: a.isDraft,
    status: a.status,
    streamingEnabled: a.streamingEnabled,
    fileUploadsEnabled: a.fileUploadsEnabled,
    voiceEnabled: a.voiceEnabled,
    voiceSettings: a.voiceSettings,
    multimodalConfig: a.multimodalConfig,
    tools: a.tools,
    templateVariables: a.templateVariables,
  };
}

/** The agent object every endpoint returns (spec 2.3); get-agent adds knowledgeBases and modelInputModalities. */
export function toAgentView(a: Agent, knowledgeBaseIds?: string[]) {
  return {
    id: a.id,
    organizationId: a.organizationId,
    ...configurationOf(a),
    slug: a.slug,
    distribution: a.distribution,
    reviewFeedback: a.reviewFeedback,
    submittedAt: a.submittedAt,
    reviewedAt: a.reviewedAt,
    publishedAt: a.publishedAt,
    ...(knowledgeBaseIds ? { knowledgeBaseIds } : {}),
    createdBy: a.createdBy,
    createdAt: a.createdAt,
    updatedAt: a.updatedAt,
  };
}

export type AgentView = ReturnType<typeof toAgentView>;

export function snapshotOf(a: Agent, knowledgeBaseIds: string[]): AgentSnapshot {
  return { ...configurationOf(a), knowledgeBaseIds };
}
