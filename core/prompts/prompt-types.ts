/**
 * The prompt section types an agent's prompt configuration may hold (spec 2.13). A section absent from a
 * config version means the platform default below.
 *
 * | promptType               | instanced | used for                                                      |
 * | ------------------------ | --------- | ------------------------------------------------------------- |
 * | system                   | no        | the system prompt (replaces the agent's systemPrompt field)    |
 * | guardrail                | no        | rules appended after the system prompt                        |
 * | welcome                  | no        | first message of every new conversation (docs/contracts.md)           |
 * | persona                  | no        | who the agent is: name, tone of voice                         |
 * | response_style           | no        | length and format of answers                                  |
 * | fallback                 | no        | what to say when the knowledge bases have no answer           |
 * | custom_tool_instructions | yes       | how to use one custom tool; instanceRef = toolDefinitionId    |
 */
export const PROMPT_TYPES = [
  'system',
  'guardrail',
  'welcome',
  'persona',
  'response_style',
  'fallback',
  'custom_tool_instructions',
] as const;
export type PromptType = (typeof PROMPT_TYPES)[number];

export const INSTANCED_TYPES: readonly PromptType[] = ['custom_tool_instructions'];

/** Namespaces of `{{namespace.name}}` variables (docs/contracts.md "Template variable namespaces"). */
export const BASE_NAMESPACES = ['agent', 'org', 'user', 'conversation', 'contact'] as const;
export type VariableNamespace = (typeof BASE_NAMESPACES)[number] | 'tool';

export const isPromptType = (v: string): v is PromptType => (PROMPT_TYPES as readonly string[]).includes(v);
export const isInstanced = (t: PromptType) => INSTANCED_TYPES.includes(t);

/** `tool` is allowed only inside custom_tool_instructions. */
export function allowedNamespaces(type: PromptType): readonly VariableNamespace[] {
  return type === 'custom_tool_instructions' ? [...BASE_NAMESPACES, 'tool'] : BASE_NAMESPACES;
}

/** Platform defaults of each type (null: the section adds nothing unless configured). */
export const PLATFORM_DEFAULTS: Record<PromptType, string | null> = {
  system: null,
  guardrail: null,
  welcome: null,
  persona: null,
  response_style: null,
  fallback: "I couldn't find that in my knowledge base. Could you rephrase, or ask about something else?",
  custom_tool_instructions: null,
};
