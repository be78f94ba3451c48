import type { Agent } from '../agents/agent';
import type { Repositories } from '../ports/repositories';
import type { PromptSection } from './prompt-config';
import type { PromptType } from './prompt-types';
import { renderTemplate, type TemplateValues } from './template';

/** `live`: what visitors get on every channel; `draft`: preview chat. */
export type PromptSource = 'live' | 'draft';

export const BUILT_IN_SYSTEM_PROMPT =
  'You are a helpful assistant. Answer from the knowledge base context you are given; when it does not contain the answer, say so plainly instead of guessing.';

const strip = ({ promptType, instanceRef, mode, content, prompt }: PromptSection): PromptSection => ({
  promptType,
  instanceRef,
  mode,
  content,
  prompt,
});

/** The agent's configured sections from the live version (none when never published) or from the draft. */
export async function resolvePromptSections(repos: Repositories, agentId: string, source: PromptSource): Promise<PromptSection[]> {
  if (source === 'draft') return (await repos.prompts.draft(agentId)).map(strip);
  const live = await repos.prompts.live(agentId);
  return live ? (await repos.prompts.versionItems(live.versionId)).map(strip) : [];
}

export const findSection = (sections: PromptSection[], type: PromptType, instanceRef: string | null = null) =>
  sections.find((s) => s.promptType === type && (s.instanceRef ?? null) === instanceRef) ?? null;

/** The text of a fixed section (or of a generated one's prompt where no model runs), null when empty. */
const textOf = (s: PromptSection | null) => {
  const t = s ? (s.mode === 'fixed' ? s.content : (s.content ?? s.prompt)) : null;
  return t && t.trim() ? t : null;
};

/**
 * The system prompt for chat (spec 4.4): the agent's configuration (its `system` section from `source`, else
 * the agent's own systemPrompt field), then the platform's system default, then the built-in fallback.
 * Not rendered: call `renderTemplate` with the conversation's variables.
 */
export async function resolveSystemPrompt(
  repos: Repositories,
  agent: Agent,
  source: PromptSource,
  systemDefault?: string | null,
): Promise<string> {
  const sections = await resolvePromptSections(repos, agent.id, source);
  return (
    textOf(findSection(sections, 'system')) ??
    (agent.systemPrompt?.trim() ? agent.systemPrompt : null) ??
    (systemDefault?.trim() ? systemDefault : null) ??
    BUILT_IN_SYSTEM_PROMPT
  );
}

/**
 * Full rendered instructions: system prompt, then persona, response style, guardrails, fallback wording and
 * the instructions of each enabled custom tool (with its `tool` namespace: id and config).
 */
export async function buildInstructions(
  repos: Repositories,
  agent: Agent,
  source: PromptSource,
  values: TemplateValues,
  systemDefault?: string | null,
): Promise<string> {
  const sections = await resolvePromptSections(repos, agent.id, source);
  const parts = [renderTemplate(await resolveSystemPrompt(repos, agent, source, systemDefault), values)];
  const labelled: [PromptType, string][] = [
    ['persona', 'Persona'],
    ['response_style', 'Response style'],
    ['guardrail', 'Rules'],
    ['fallback', 'When the answer is not in the context, reply'],
  ];
  for (const [type, label] of labelled) {
    const text = textOf(findSection(sections, type));
    if (text) parts.push(`${label}:\n${renderTemplate(text, values)}`);
  }
  for (const tool of agent.tools.filter((t) => t.isEnabled)) {
    const text = textOf(findSection(sections, 'custom_tool_instructions', tool.toolDefinitionId));
    if (text)
      parts.push(
        `Tool ${tool.toolDefinitionId}:\n${renderTemplate(text, { ...values, tool: { id: tool.toolDefinitionId, ...(tool.config ?? {}) } })}`,
      );
  }
  return parts.join('\n\n');
}

export type WelcomeMessage = { mode: 'fixed'; text: string } | { mode: 'generated'; prompt: string };

/**
 * docs/contracts.md "Welcome messages": no welcome section or empty content means none; `fixed` gives the rendered
 * content; `generated` gives the rendered prompt, which the caller sends to the model (billable).
 */
export async function resolveWelcome(
  repos: Repositories,
  agentId: string,
  source: PromptSource,
  values: TemplateValues,
): Promise<WelcomeMessage | null> {
  const section = findSection(await resolvePromptSections(repos, agentId, source), 'welcome');
  if (!section) return null;
  if (section.mode === 'generated')
    return section.prompt?.trim() ? { mode: 'generated', prompt: renderTemplate(section.prompt, values) } : null;
  return section.content?.trim() ? { mode: 'fixed', text: renderTemplate(section.content, values) } : null;
}
