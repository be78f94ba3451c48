/**
 * The OpenAI-compatible surface (`/v1/chat/completions`, `/v1/models`; beyond the spec): the organization comes
 * from the API key, `model` names one of its agents (id or slug), the last user message is the chat message
 * and the messages before it are the history. Runs the same pipeline as every other chat surface.
 */
import type { Agent } from '../agents/agent';
import { isUuid } from '../agents/agent-access';
import type { ApiKeyActor } from '../identity/actor';
import type { ChatMessage } from '../ports/chat-model';
import type { Repositories } from '../ports/repositories';
import { DomainError } from '../shared/errors';
import type { ChatDeps } from './chat-deps';
import { CHAT_LIMITS } from './chat-limits';
import { prepareChat, type PreparedChat } from './chat-pipeline';
import { modelTakesTools } from './chat-tools';
import { asksForTools, compatToolChoice, compatTools, refuseUnsupportedTools, toolMessage } from './openai-compat-tools';

export type CompatContent = string | { type: string; text?: string }[] | null;

export interface CompatRequest {
  model: string;
  messages: { role: string; content: CompatContent; tool_calls?: unknown; tool_call_id?: unknown }[];
  stream?: boolean;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  tools?: unknown[];
  tool_choice?: unknown;
  functions?: unknown[];
  function_call?: unknown;
}

const textOf = (content: CompatContent): string =>
  typeof content === 'string'
    ? content
    : Array.isArray(content)
      ? content.map((p) => (p && p.type === 'text' && typeof p.text === 'string' ? p.text : '')).join('')
      : '';

const modelNotFound = (model: string) =>
  new DomainError('NOT_FOUND', `The model ${model} does not exist: use the id or slug of an agent of your organization (GET /v1/models)`);

/** An agent of the key's organization by id or slug; anything else is 404. */
export async function compatAgent(repos: Repositories, organizationId: string, model: string): Promise<Agent> {
  const agent = isUuid(model) ? await repos.agents.findById(organizationId, model) : await repos.agents.findBySlug(model);
  if (!agent || agent.organizationId !== organizationId || agent.deletedAt) throw modelNotFound(model);
  return agent;
}

/**
 * Splits OpenAI messages: system messages become the per-message system prompt override, the last user
 * message is the chat message, user and assistant messages before it are the history. With `keepTools`,
 * assistant tool calls and tool results are kept too, and those after the last user message (a client sending
 * back its tools' results) are the `continuation`, sent to the model after the chat message.
 */
export function splitMessages(
  messages: CompatRequest['messages'],
  keepTools = false,
): { message: string; history: ChatMessage[]; systemPrompt?: string; continuation?: ChatMessage[] } {
  let last = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') last = i;
  });
  if (last === -1)
    throw new DomainError('VALIDATION', 'messages must contain a user message', [{ field: 'messages', message: 'no user message' }]);
  const system = messages
    .filter((m) => m.role === 'system' || m.role === 'developer')
    .map((m) => textOf(m.content))
    .join('\n\n')
    .trim();
  const portMessage = (m: CompatRequest['messages'][number]): ChatMessage | null => {
    const content = textOf(m.content);
    const tool = keepTools ? toolMessage(m, content) : null;
    if (tool) return tool;
    if ((m.role === 'user' || m.role === 'assistant') && content.trim()) return { role: m.role, content };
    return null;
  };
  const history = messages.slice(0, last).flatMap((m) => portMessage(m) ?? []);
  const continuation = keepTools ? messages.slice(last + 1).flatMap((m) => portMessage(m) ?? []) : [];
  return {
    message: textOf(messages[last].content),
    history,
    ...(system ? { systemPrompt: system.slice(0, CHAT_LIMITS.systemPromptChars + 1) } : {}),
    ...(continuation.length ? { continuation } : {}),
  };
}

export async function prepareCompatChat(deps: ChatDeps, key: ApiKeyActor, body: CompatRequest): Promise<PreparedChat> {
  const agent = await compatAgent(deps.store.repos, key.organizationId, body.model);
  const takesTools = asksForTools(body) && (await modelTakesTools(deps, deps.store.repos, agent.model));
  refuseUnsupportedTools(body, takesTools);
  const tools = takesTools ? compatTools(body.tools) : [];
  const toolChoice = takesTools ? compatToolChoice(body.tool_choice, tools) : undefined;
  const { message, history, systemPrompt, continuation } = splitMessages(body.messages, takesTools);
  const prepared = await prepareChat(deps, {
    agent,
    caller: { organizationId: key.organizationId, userId: null, seesAll: false, platform: 'api' },
    input: { message, ...(systemPrompt ? { systemPrompt } : {}) },
    promptSource: 'live',
    history,
  });
  const maxTokens = body.max_completion_tokens ?? body.max_tokens;
  if (maxTokens !== undefined) prepared.request.maxTokens = maxTokens;
  if (body.temperature !== undefined) prepared.request.temperature = body.temperature;
  if (takesTools) {
    // The client's tools are run by the client: their calls are returned, never run here.
    prepared.request.tools = tools;
    if (toolChoice) prepared.request.toolChoice = toolChoice;
    if (continuation) prepared.request.messages = [...prepared.request.messages, ...continuation];
  }
  return prepared;
}

/** The organization's agents as OpenAI model objects. */
export async function listCompatModels(deps: ChatDeps, key: ApiKeyActor) {
  const data: object[] = [];
  for (let offset = 0; ; offset += 200) {
    const { items, total } = await deps.store.repos.agents.list(key.organizationId, { limit: 200, offset });
    for (const a of items) {
      data.push({
        id: a.id,
        object: 'model',
        created: Math.floor(Date.parse(a.createdAt) / 1000),
        owned_by: a.organizationId,
        name: a.name,
        slug: a.slug,
        underlying_model: a.model,
        status: a.status,
      });
    }
    if (offset + items.length >= total || items.length === 0) break;
  }
  return { object: 'list', data };
}
