import type { PromptType } from './prompt-types';

export type SectionMode = 'fixed' | 'generated';

/** Spec 2.13 section: `fixed` uses `content` as written; `generated` sends `prompt` to a model. */
export interface PromptSection {
  promptType: PromptType;
  /** toolDefinitionId for instanced types, else null. */
  instanceRef: string | null;
  mode: SectionMode;
  content: string | null;
  prompt: string | null;
}

export interface DraftSection extends PromptSection {
  updatedAt: string;
  updatedBy: string | null;
}

/** An immutable capture of every customised draft section, numbered vMajor.Minor. */
export interface PromptConfigVersion {
  id: string;
  agentId: string;
  organizationId: string;
  versionMajor: number;
  versionMinor: number;
  label: string | null;
  createdAt: string;
  /** Null for system-made versions and for authors whose account was deleted. */
  createdBy: string | null;
  authorName: string | null;
  sectionCount: number;
}

export interface LivePointer {
  agentId: string;
  versionId: string;
  versionMajor: number;
  versionMinor: number;
  publishedAt: string;
  publishedBy: string | null;
  publishedByName: string | null;
}

export const sectionKey = (s: { promptType: string; instanceRef: string | null }) => `${s.promptType}\u0000${s.instanceRef ?? ''}`;

/** Prompt configuration of agents. Writers hold the agent row lock (AgentRepository.lockForUpdate). */
export interface PromptConfigRepository {
  draft(agentId: string): Promise<DraftSection[]>;
  upsertDraft(organizationId: string, agentId: string, sections: PromptSection[], at: string, by: string | null): Promise<void>;
  /** Drops one draft override; false when there was none. */
  removeDraft(agentId: string, promptType: PromptType, instanceRef: string | null): Promise<boolean>;
  newestVersion(agentId: string): Promise<PromptConfigVersion | null>;
  createVersion(version: Omit<PromptConfigVersion, 'authorName' | 'sectionCount'>, items: PromptSection[]): Promise<void>;
  /** Newest first. */
  listVersions(agentId: string, limit: number): Promise<{ items: PromptConfigVersion[]; total: number }>;
  /** Only a version of this agent (a version of another agent is null). */
  findVersion(agentId: string, versionId: string): Promise<PromptConfigVersion | null>;
  versionItems(versionId: string): Promise<PromptSection[]>;
  live(agentId: string): Promise<LivePointer | null>;
  setLive(agentId: string, versionId: string, at: string, by: string | null): Promise<void>;
}
