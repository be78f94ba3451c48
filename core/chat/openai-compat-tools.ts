/**
 * Client-defined tools on `/v1/chat/completions`: when the agent's model takes tools (adapter and catalogue),
 * the client's `tools`/`tool_choice` go to the model and its `tool_calls` come back to the client unrun, as
 * OpenAI does. Otherwise a request that asks for tools is refused in OpenAI's error shape (param `tools`)
 * rather than silently answered without them. The deprecated `functions` are always refused.
 */
import type { ChatMessage, ChatTool, ChatToolCall, ChatToolChoice } from '../ports/chat-model';
import { DomainError } from '../shared/errors';

export interface CompatToolFields {
  tools?: unknown[];
  tool_choice?: unknown;
  functions?: unknown[];
  function_call?: unknown;
}

export interface CompatToolCall {
  id: string;
  type: 'function';
  function: { name: string; arguments: string };
}

const TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

const refused = (field: string, message: string) => new DomainError('VALIDATION', message, [{ field, message: 'not supported' }]);
const invalid = (field: string, message: string) => new DomainError('VALIDATION', message, [{ field, message }]);

const asksFor = (list: unknown[] | undefined, choice: unknown) =>
  (Array.isArray(list) && list.length > 0) || (choice !== undefined && choice !== 'none' && choice !== null);

/** True when the request asks for tools at all (a non-empty list or a choice other than none). */
export const asksForTools = (body: CompatToolFields) => asksFor(body.tools, body.tool_choice);

/** The deprecated `functions` are refused whatever the model; `tools` too when the model takes none. */
export function refuseUnsupportedTools(body: CompatToolFields, modelTakesTools: boolean): void {
  if (asksFor(body.functions, body.function_call))
    throw refused('functions', "functions are not supported: send tools instead (when the agent's model supports tools)");
  if (!modelTakesTools && asksForTools(body))
    throw refused('tools', "tools are not supported: the agent's model does not support tool calls; send the request without them");
}

/** The client's tools in port form; 400 for a malformed definition. */
export function compatTools(tools: unknown[] | undefined): ChatTool[] {
  return (tools ?? []).map((raw, i) => {
    const t = raw as { type?: unknown; function?: { name?: unknown; description?: unknown; parameters?: unknown } };
    const fn = t?.function;
    if (t?.type !== 'function' || !fn || typeof fn.name !== 'string' || !TOOL_NAME.test(fn.name))
      throw invalid('tools', `tools[${i}] must be {"type": "function", "function": {"name": <letters, digits, _ or -, at most 64>}}`);
    if (fn.description !== undefined && typeof fn.description !== 'string')
      throw invalid('tools', `tools[${i}].function.description must be a string`);
    if (fn.parameters !== undefined && (typeof fn.parameters !== 'object' || fn.parameters === null || Array.isArray(fn.parameters)))
      throw invalid('tools', `tools[${i}].function.parameters must be a JSON schema object`);
    return {
      name: fn.name,
      ...(fn.description ? { description: fn.description } : {}),
      ...(fn.parameters ? { parameters: fn.parameters as Record<string, unknown> } : {}),
    };
  });
}

/** `tool_choice` in port form; 400 for anything OpenAI does not define or a tool not in `tools`. */
export function compatToolChoice(choice: unknown, tools: ChatTool[]): ChatToolChoice | undefined {
  if (choice === undefined || choice === null) return undefined;
  if (choice === 'none' || choice === 'auto' || choice === 'required') {
    if (choice !== 'none' && !tools.length) throw invalid('tool_choice', `tool_choice ${choice} needs tools`);
    return choice;
  }
  const name = (choice as { type?: unknown; function?: { name?: unknown } })?.function?.name;
  if ((choice as { type?: unknown }).type !== 'function' || typeof name !== 'string')
    throw invalid('tool_choice', 'tool_choice must be "none", "auto", "required" or {"type": "function", "function": {"name": ...}}');
  if (!tools.some((t) => t.name === name)) throw invalid('tool_choice', `tool_choice names ${name}, which is not in tools`);
  return { name };
}

/** An OpenAI assistant message's `tool_calls` in port form (malformed entries dropped). */
export function portToolCalls(raw: unknown): ChatToolCall[] {
  if (!Array.isArray(raw)) return [];
  return raw.flatMap((c: { id?: unknown; function?: { name?: unknown; arguments?: unknown } }) =>
    c && typeof c.id === 'string' && typeof c.function?.name === 'string'
      ? [{ id: c.id, name: c.function.name, arguments: typeof c.function.arguments === 'string' ? c.function.arguments : '' }]
      : [],
  );
}

/** Port tool calls in OpenAI's response shape. */
export const compatToolCalls = (calls: ChatToolCall[]): CompatToolCall[] =>
  calls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } }));

/** A tool-call round trip kept in port form: an assistant message with calls, or a tool result. */
export function toolMessage(m: { role: string; tool_calls?: unknown; tool_call_id?: unknown }, content: string): ChatMessage | null {
  if (m.role === 'assistant') {
    const toolCalls = portToolCalls(m.tool_calls);
    return toolCalls.length ? { role: 'assistant', content, toolCalls } : null;
  }
  if (m.role === 'tool' && typeof m.tool_call_id === 'string') return { role: 'tool', content, toolCallId: m.tool_call_id };
  return null;
}
