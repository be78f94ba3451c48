/**
 * Tool calls in a chat turn. The platform's own tool is `update_contact` (spec 2.10: field history source
 * `tool`, `source_ref` null), offered when the conversation has or is about to get a contact, the agent has not
 * listed it disabled, and the model supports tools. The model's calls are run here, their results sent back, and the model called again until it
 * answers (at most MAX_TOOL_ROUNDS rounds of calls); the visitor only sees the final text. Writes are collected
 * and applied in the turn's transaction, once the contact is resolved (a first message creates it there).
 */
import type { AgentTool } from '../agents/agent';
import type { FieldWrite } from '../contacts/contact-fields';
import type { ChannelIdentity } from '../contacts/contact-resolution';
import type { ChatCompletion, ChatMessage, ChatRequest, ChatTool, ChatToolCall, TokenUsage } from '../ports/chat-model';
import type { Repositories } from '../ports/repositories';
import type { ChatDeps } from './chat-deps';

export const UPDATE_CONTACT = 'update_contact';

/** Rounds of tool calls a turn runs; the call after the last round must answer in text (tool_choice `none`). */
export const MAX_TOOL_ROUNDS = 3;

const MAX_ATTRIBUTES = 20;
const ATTRIBUTE_KEY = /^[a-zA-Z][a-zA-Z0-9_]{0,39}$/;
const RESERVED_KEYS = new Set(['name', 'email', 'phone', 'displayName', 'id', 'status']);

export const UPDATE_CONTACT_TOOL: ChatTool = {
  name: UPDATE_CONTACT,
  description:
    'Record what the person you are talking with told you about themselves: their name, email, phone, company, or other ' +
    'attributes. Only call it with values they stated; omit fields you do not know.',
  parameters: {
    type: 'object',
    properties: {
      name: { type: 'string', description: 'Full name' },
      email: { type: 'string', description: 'Email address' },
      phone: { type: 'string', description: 'Phone number, international format if known' },
      company: { type: 'string', description: 'Company or organization' },
      attributes: {
        type: 'object',
        description: 'Other facts as key/value pairs (keys: letters, digits, underscores)',
        additionalProperties: { type: ['string', 'number', 'boolean'] },
      },
    },
    additionalProperties: false,
  },
};

/** Whether tools go to this model: the adapter sends them and the catalogue lists the model as tool-capable. */
/** A platform tool is on unless the agent lists it disabled (agents without a `tools` entry keep it). */
export function agentToolEnabled(agent: { tools: AgentTool[] }, toolDefinitionId: string): boolean {
  return !agent.tools.some((tool) => tool.toolDefinitionId === toolDefinitionId && !tool.isEnabled);
}

export async function modelTakesTools(deps: ChatDeps, repos: Repositories, model: string): Promise<boolean> {
  if (!deps.chatModel.supportsTools?.(model)) return false;
  return (await repos.models.findById(model))?.capabilities.tools === true;
}

export type ParsedUpdate = { writes: FieldWrite[] } | { error: string };

/** Validates `update_contact` arguments (the model's JSON text); strict: unknown fields and wrong types are errors. */
export function parseUpdateContact(argumentsJson: string): ParsedUpdate {
  let args: unknown;
  try {
    args = JSON.parse(argumentsJson || '{}');
  } catch {
    return { error: 'arguments are not valid JSON' };
  }
  if (!args || typeof args !== 'object' || Array.isArray(args)) return { error: 'arguments must be an object' };
  const writes: FieldWrite[] = [];
  for (const [key, value] of Object.entries(args as Record<string, unknown>)) {
    if (key === 'attributes') {
      if (!value || typeof value !== 'object' || Array.isArray(value)) return { error: 'attributes must be an object' };
      const entries = Object.entries(value as Record<string, unknown>);
      if (entries.length > MAX_ATTRIBUTES) return { error: `attributes may hold at most ${MAX_ATTRIBUTES} keys` };
      for (const [attribute, v] of entries) {
        if (!ATTRIBUTE_KEY.test(attribute) || RESERVED_KEYS.has(attribute))
          return { error: `attributes.${attribute}: keys are letters, digits and underscores, not a contact field` };
        if (!['string', 'number', 'boolean'].includes(typeof v))
          return { error: `attributes.${attribute} must be a string, number or boolean` };
        writes.push({ key: attribute, value: String(v) });
      }
    } else if (key === 'name' || key === 'email' || key === 'phone' || key === 'company') {
      if (value === null || value === undefined) continue;
      if (typeof value !== 'string') return { error: `${key} must be a string` };
      writes.push({ key, value });
    } else {
      return { error: `unknown field ${key}` };
    }
  }
  if (!writes.length) return { error: 'no field given' };
  return { writes };
}

/** What the turn's own tools need: who the contact is (or will be) and where writes are collected. */
export interface ToolRun {
  organizationId: string;
  contactId: string | null;
  identity: ChannelIdentity | null;
  /** Collected `update_contact` writes, applied after the turn's contact resolution. */
  writes: FieldWrite[];
}

/**
 * Runs the turn's tool calls and answers each. Email and phone already held by another contact are reported as
 * refused (the write itself is still attempted in the transaction, where it is refused and recorded in history).
 */
export async function runToolCalls(deps: ChatDeps, repos: Repositories, run: ToolRun, calls: ChatToolCall[]): Promise<ChatMessage[]> {
  const results: ChatMessage[] = [];
  for (const call of calls) {
    const answer = (body: Record<string, unknown>) => results.push({ role: 'tool', toolCallId: call.id, content: JSON.stringify(body) });
    if (call.name !== UPDATE_CONTACT) {
      answer({ error: `unknown tool ${call.name}` });
      continue;
    }
    const parsed = parseUpdateContact(call.arguments);
    if ('error' in parsed) {
      answer({ error: parsed.error });
      continue;
    }
    const refused = await heldElsewhere(deps, repos, run, parsed.writes);
    run.writes.push(...parsed.writes);
    answer({
      saved: parsed.writes.map((w) => w.key).filter((k) => !refused.includes(k)),
      ...(refused.length ? { refused, reason: 'already belongs to another contact' } : {}),
    });
  }
  return results;
}

async function heldElsewhere(deps: ChatDeps, repos: Repositories, run: ToolRun, writes: FieldWrite[]): Promise<string[]> {
  if (!deps.contacts) return [];
  const own =
    run.contactId ??
    (run.identity
      ? ((await repos.contacts.findByIdentity(run.organizationId, run.identity.channel, run.identity.identifier))?.id ?? null)
      : null);
  const refused: string[] = [];
  for (const w of writes) {
    if (w.key !== 'email' && w.key !== 'phone') continue;
    const value = w.key === 'email' ? deps.contacts.identifiers.email(w.value) : deps.contacts.identifiers.phone(w.value);
    if (!value) continue;
    const holder = await repos.contacts.findByPrimary(run.organizationId, w.key === 'email' ? 'primaryEmail' : 'primaryPhone', value);
    if (holder && holder.id !== own) refused.push(w.key);
  }
  return refused;
}

const addUsage = (a: TokenUsage, b: TokenUsage): TokenUsage => ({
  promptTokens: a.promptTokens + b.promptTokens,
  completionTokens: a.completionTokens + b.completionTokens,
  totalTokens: a.totalTokens + b.totalTokens,
});

/**
 * Calls the model, runs its calls to the turn's own tools and calls it again, until it answers in text. The
 * result's usage is the sum over every call (billing counts them all); its text is every round's text (what a
 * stream showed). Without `run` (client-defined tools on /v1) the first answer is returned, tool calls included.
 */
export async function completeWithTools(
  deps: ChatDeps,
  request: ChatRequest,
  call: (request: ChatRequest) => Promise<ChatCompletion>,
  run: ToolRun | null,
): Promise<ChatCompletion> {
  let completion = await call(request);
  if (!run || !request.tools?.length) return completion;
  const messages = [...request.messages];
  let usage = completion.usage;
  let text = completion.text;
  for (let round = 1; round <= MAX_TOOL_ROUNDS && completion.finishReason === 'tool_calls' && completion.toolCalls?.length; round++) {
    const results = await runToolCalls(deps, deps.store.repos, run, completion.toolCalls);
    messages.push({ role: 'assistant', content: completion.text, toolCalls: completion.toolCalls }, ...results);
    // The last round keeps the tool list (the history refers to it) but forbids further calls.
    completion = await call({ ...request, messages, toolChoice: round >= MAX_TOOL_ROUNDS ? 'none' : request.toolChoice });
    usage = addUsage(usage, completion.usage);
    text += completion.text;
  }
  const { toolCalls: _unanswered, ...final } = completion;
  return { ...final, text, usage, finishReason: final.finishReason === 'tool_calls' ? 'stop' : final.finishReason };
}
