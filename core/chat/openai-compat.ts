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

export type CompatContent = string | { type: string; text?: string }[] | null;

export interface CompatRequest {
  model: string;
  messages: { role: string; content: CompatContent }[];
  stream?: boolean;
  max_tokens?: number;
  max_completion_tokens?: number;
  temperature?: number;
  tools?: unknown[];
  tool_choice?: unknown;
  functions?: unknown[];
  function_call?: unknown;
}

/**
 * Agents answer from their knowledge and prompt; they call no client-defined tools. A request that asks for
 * them is refused rather than silently answered without them. `tool_choice: "none"` and empty lists are fine.
 */
function refuseClientTools(body: CompatRequest): void {
  const asks = (list: unknown[] | undefined, choice: unknown, field: string) => {
    if ((Array.isArray(list) && list.length > 0) || (choice !== undefined && choice !== 'none' && choice !== null)) {
      throw new DomainError(
        'VALIDATION',
        `${field} are not supported: agents do not call client-defined tools; send the request without them`,
        [{ field, message: 'not supported' }],
      );
    }
  };
  asks(body.tools, body.tool_choice, 'tools');
  asks(body.functions, body.function_call, 'functions');
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
 * message is the chat message, user and assistant messages before it are the history.
 */
export function splitMessages(messages: CompatRequest['messages']): { message: string; history: ChatMessage[]; systemPrompt?: string } {
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
  const history: ChatMessage[] = messages
    .slice(0, last)
    .filter((m) => m.role === 'user' || m.role === 'assistant')
    .map((m) => ({ role: m.role as 'user' | 'assistant', content: textOf(m.content) }))
    .filter((m) => m.content.trim());
  return {
    message: textOf(messages[last].content),
    history,
    ...(system ? { systemPrompt: system.slice(0, CHAT_LIMITS.systemPromptChars + 1) } : {}),
  };
}

export async function prepareCompatChat(deps: ChatDeps, key: ApiKeyActor, body: CompatRequest): Promise<PreparedChat> {
  refuseClientTools(body);
  const agent = await compatAgent(deps.store.repos, key.organizationId, body.model);
  const { message, history, systemPrompt } = splitMessages(body.messages);
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
