import type { AgentTool } from '../agents/agent';
import { DomainError } from '../shared/errors';
import { type PromptSection, sectionKey, type SectionMode } from './prompt-config';
import { isInstanced, isPromptType, PROMPT_TYPES } from './prompt-types';
import { checkVariableNamespaces } from './template';

export interface SectionInput {
  promptType: string;
  instanceRef?: string | null;
  mode: SectionMode;
  content?: string | null;
  prompt?: string | null;
}

/**
 * Resolves and checks the address of a section: a known type, instanceRef exactly when instanced and, unless
 * `tools` is null (reset of a tool that may be gone), naming an enabled tool of the agent.
 */
export function sectionAddress(promptType: string, instanceRef: string | null | undefined, tools: AgentTool[] | null) {
  if (!isPromptType(promptType)) {
    throw new DomainError('UNKNOWN_PROMPT_TYPE', `Unknown prompt type "${promptType}" (known: ${PROMPT_TYPES.join(', ')})`, { promptType });
  }
  const ref = instanceRef ?? null;
  if (isInstanced(promptType)) {
    if (!ref)
      throw new DomainError(
        'INSTANCED_TYPE_NOT_ADDRESSED',
        `${promptType} sections need an instanceRef (the toolDefinitionId of an enabled tool)`,
        { promptType },
      );
    if (tools && !tools.some((t) => t.isEnabled && t.toolDefinitionId === ref)) {
      throw new DomainError('INSTANCE_NOT_FOUND', `${ref} is not an enabled custom tool of this agent`, { promptType, instanceRef: ref });
    }
  } else if (ref) {
    throw new DomainError('VALIDATION', `${promptType} sections are not instanced; instanceRef must be null`, {
      promptType,
      instanceRef: ref,
    });
  }
  return { promptType, instanceRef: ref };
}

/**
 * Checks the sections of one save (spec 7): known types, instanced types addressed to an enabled tool,
 * allowed variable namespaces, and each section at most once. Throws before anything is written.
 */
export function validateSections(sections: SectionInput[], tools: AgentTool[]): PromptSection[] {
  const seen = new Set<string>();
  return sections.map((s) => {
    const address = sectionAddress(s.promptType, s.instanceRef, tools);
    const key = sectionKey(address);
    if (seen.has(key)) {
      throw new DomainError(
        'DUPLICATE_SECTION',
        `The section ${address.promptType}${address.instanceRef ? `:${address.instanceRef}` : ''} appears more than once`,
        address,
      );
    }
    seen.add(key);
    checkVariableNamespaces(address.promptType, [s.content, s.prompt]);
    return { ...address, mode: s.mode, content: s.content ?? null, prompt: s.prompt ?? null };
  });
}

const same = (a: PromptSection | undefined, b: PromptSection | undefined) =>
  !!a && !!b && a.mode === b.mode && (a.content ?? null) === (b.content ?? null) && (a.prompt ?? null) === (b.prompt ?? null);

/** True when two sets of sections hold the same sections with the same text. */
export function sameSections(a: PromptSection[], b: PromptSection[]): boolean {
  if (a.length !== b.length) return false;
  const byKey = new Map(b.map((s) => [sectionKey(s), s]));
  return a.every((s) => same(s, byKey.get(sectionKey(s))));
}

export const sectionsEqual = same;
