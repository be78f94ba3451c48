/**
 * The chat pipeline of spec 4.4, as explicit steps shared by every chat surface (authenticated, preview,
 * OpenAI-compatible, public):
 *
 *   prepareChat: 1 validate input -> 2 load or start the conversation -> 3 extract attachment text
 *     -> 4 merge per-message variables -> 5 retrieve from all linked KBs (query: last 5 messages + attachment
 *     text) -> 6 KB document map -> 7 graph entity search -> 8 resolve and render the system prompt
 *     -> 9 price the model and refuse without credits (before any provider call)
 *   runChat: 10 call the model (complete or stream, abortable) -> 11 save the user and assistant messages,
 *     record billing (kind `chat`, exactly the tokens produced) -> 12 optional voice -> respond.
 */
import type { Agent } from '../agents/agent';
import { type ChannelIdentity, contactTemplateValues, recordContactTurn } from '../contacts/contact-resolution';
import type { ChatSource, ChatUsage, Conversation, StoredMessage } from '../conversations/conversation';
import { type ConversationViewer, loadConversation, templateValues } from '../conversations/conversation-access';
import type { ResolvedAttachment } from '../ports/attachment-resolver';
import type { ChatCompletion, ChatMessage, ChatRequest, ChatToolCall } from '../ports/chat-model';
import type { Repositories } from '../ports/repositories';
import type { PromptConfigRepository } from '../prompts/prompt-config';
import { buildInstructions, type PromptSource } from '../prompts/resolve-prompt';
import { renderTemplate } from '../prompts/template';
import { DomainError } from '../shared/errors';
import { chargeModelCall, ensureCreditsFor, type ModelPrice, modelPrice } from './chat-billing';
import { composeSystemMessage, contextChunks, gatherKnowledge, type KnowledgeContext, retrievalQuery } from './chat-context';
import type { ChatDeps } from './chat-deps';
import { toChatError } from './chat-errors';
import { type ChatInput, checkVariables, validateChatInput } from './chat-input';
import { recordTurn } from './chat-recording';
import { agentToolEnabled, completeWithTools, modelTakesTools, type ToolRun, UPDATE_CONTACT, UPDATE_CONTACT_TOOL } from './chat-tools';
import { isTakenOver, storeHeldTurn } from './operator-takeover';
import { type PreparedWelcome, produceWelcome, storeWelcome } from './welcome-message';

export interface ChatCaller extends ConversationViewer {
  /** Platform of conversations this caller starts (web, api, preview, public...). */
  platform: string;
  /** Who writes in, as their channel knows them (visitor id, phone, email): resolves the conversation's contact. */
  identity?: ChannelIdentity | null;
  /** The agent channel a conversation this caller starts belongs to. */
  channelId?: string | null;
}

export interface ChatTurn {
  agent: Agent;
  caller: ChatCaller;
  input: ChatInput;
  /** live: every channel; draft: preview chat. */
  promptSource: PromptSource;
  /** Given by OpenAI-compatible requests (which carry their own history); else read from the conversation. */
  history?: ChatMessage[];
}

export interface PreparedChat {
  turn: ChatTurn;
  /** Stream only when asked and the agent has streamingEnabled. */
  stream: boolean;
  conversation: Conversation;
  isNew: boolean;
  variablesChanged: boolean;
  attachments: ResolvedAttachment[];
  knowledge: KnowledgeContext;
  price: ModelPrice;
  /** The welcome of a conversation this turn starts (spec 4.4), stored first; null otherwise. */
  welcome: PreparedWelcome | null;
  request: Omit<ChatRequest, 'signal'>;
  /** The turn's own tools (update_contact) and their collected writes; null when none is offered. */
  toolRun: ToolRun | null;
  startedAtMs: number;
  userMessageAt: string;
  /** An operator has taken the conversation over: the message is saved, the agent does not answer. */
  heldForOperator?: boolean;
}

export interface ChatResult {
  response: string;
  conversationId: string;
  messageId: string;
  sources: ChatSource[];
  usage: ChatUsage;
  model: string;
  finishReason: ChatCompletion['finishReason'];
  /** Calls of client-defined tools (/v1), returned to the client unrun. */
  toolCalls?: ChatToolCall[];
  voice?: { audioBase64: string; mimeType: string } | null;
  /** A held turn (operator takeover): no agent answer; messageId is the saved user message. */
  operatorTakeover?: boolean;
}

const titleFrom = (message: string) => message.replace(/\s+/g, ' ').trim().slice(0, 80) || null;

async function startConversation(deps: ChatDeps, turn: ChatTurn, at: string): Promise<{ conversation: Conversation; isNew: boolean }> {
  const { agent, caller, input } = turn;
  if (input.conversationId)
    return { conversation: await loadConversation(deps.store.repos, caller, input.conversationId, agent.id), isNew: false };
  const conversation: Conversation = {
    id: deps.ids.uuid(),
    organizationId: agent.organizationId,
    agentId: agent.id,
    userId: caller.userId,
    anonymousId: caller.anonymousId ?? null,
    platform: caller.platform,
    title: titleFrom(input.message),
    contactId: null,
    channelId: caller.channelId ?? null,
    variables: {},
    sensitiveVariables: {},
    createdAt: at,
    updatedAt: at,
    deletedAt: null,
  };
  return { conversation, isNew: true };
}

async function resolveAttachments(deps: ChatDeps, agent: Agent, input: ChatInput): Promise<ResolvedAttachment[]> {
  return Promise.all(
    (input.attachments ?? []).map(async (a) => {
      const found = await deps.attachments.resolve({
        organizationId: agent.organizationId,
        agentId: agent.id,
        id: a.id,
        accessToken: a.accessToken,
      });
      if (!found)
        throw new DomainError('VALIDATION', `Attachment ${a.id} was not found or its access token does not match`, [
          { field: 'attachments', message: 'unknown attachment' },
        ]);
      return found;
    }),
  );
}

/** Prompt reads memoised for one turn: building the instructions reads the same sections more than once. */
function withPromptMemo(repos: Repositories): Repositories {
  const memo = new Map<string, Promise<unknown>>();
  const once =
    <R>(name: string, read: (id: string) => Promise<R>) =>
    (id: string): Promise<R> => {
      const key = `${name}:${id}`;
      if (!memo.has(key)) memo.set(key, read(id));
      return memo.get(key) as Promise<R>;
    };
  const prompts: PromptConfigRepository = Object.create(repos.prompts);
  prompts.draft = once('draft', (id) => repos.prompts.draft(id));
  prompts.live = once('live', (id) => repos.prompts.live(id));
  prompts.versionItems = once('items', (id) => repos.prompts.versionItems(id));
  return Object.assign(Object.create(repos) as Repositories, { prompts });
}

const sameValues = (a: Record<string, unknown>, b: Record<string, unknown>) => JSON.stringify(a) === JSON.stringify(b);

/** A turn in a conversation an operator has taken over: nothing retrieved or priced (it is never charged). */
function heldTurn(
  turn: ChatTurn,
  stream: boolean,
  conversation: Conversation,
  variablesChanged: boolean,
  attachments: ResolvedAttachment[],
  at: Date,
): PreparedChat {
  const model = turn.agent.model;
  return {
    turn,
    stream,
    conversation,
    variablesChanged,
    attachments,
    isNew: false,
    welcome: null,
    heldForOperator: true,
    knowledge: { knowledgeBaseIds: [], chunks: [], sources: [], documentMap: [], entities: [] },
    price: { model, promptPricePerToken: 0, completionPricePerToken: 0, isFree: true },
    request: { model, messages: [] },
    toolRun: null,
    startedAtMs: at.getTime(),
    userMessageAt: at.toISOString(),
  };
}

/** Steps 1-9: everything before the model is called. Throws (4xx) before any provider is reached. */
export async function prepareChat(deps: ChatDeps, turn: ChatTurn): Promise<PreparedChat> {
  const { agent, input } = turn;
  const repos = deps.store.repos;
  const now = deps.clock.now();
  const startedAtMs = now.getTime();
  const { stream } = validateChatInput(deps, agent, input);
  if (!deps.chatModel.supports(agent.model)) {
    throw new DomainError(
      'VALIDATION',
      `The model ${agent.model} is not available on this platform: no configured provider serves it. Choose another model for the agent or configure its provider.`,
      { model: agent.model },
    );
  }
  const { conversation, isNew } = await startConversation(deps, turn, now.toISOString());
  const attachments = await resolveAttachments(deps, agent, input);

  const merged = { ...conversation.variables, ...checkVariables(input.variables) };
  const variablesChanged = !sameValues(merged, conversation.variables);
  conversation.variables = merged;
  if (!isNew && isTakenOver(conversation)) return heldTurn(turn, stream, conversation, variablesChanged, attachments, now);

  const stored = turn.history
    ? null
    : isNew
      ? []
      : (await repos.conversations.recentMessages(agent.organizationId, conversation.id, deps.settings.historyMessages)).filter(
          (m) => m.role !== 'system',
        );
  const history: ChatMessage[] = turn.history ?? stored!.map((m) => ({ role: m.role, content: m.content }));

  const query = retrievalQuery(history, input.message, attachments, deps.settings.retrievalQueryMessages);
  const [org, price] = await Promise.all([repos.organizations.findById(agent.organizationId), modelPrice(repos, agent.model)]);
  const values = templateValues(agent, org, conversation, merged, conversation.sensitiveVariables);
  if (conversation.contactId)
    values.contact = contactTemplateValues(await repos.contacts.find(agent.organizationId, conversation.contactId));
  // The prompt reads run while retrieval embeds the query (the store serialises them on one connection).
  const [knowledge, instructions] = await Promise.all([
    gatherKnowledge(deps, repos, { organizationId: agent.organizationId, agentId: agent.id, query }),
    input.systemPrompt?.trim()
      ? renderTemplate(input.systemPrompt, values)
      : buildInstructions(withPromptMemo(repos), agent, turn.promptSource, values, deps.settings.systemDefaultPrompt),
  ]);
  const system = composeSystemMessage(instructions, knowledge, attachments, deps.settings.documentMapEntries);

  await ensureCreditsFor(deps, agent.organizationId, price);
  // update_contact is offered when the turn has (or resolves) a contact, the agent has not disabled it and the
  // model takes tools.
  const identity = turn.caller.identity ?? null;
  const toolRun: ToolRun | null =
    deps.contacts &&
    (conversation.contactId || identity) &&
    agentToolEnabled(agent, UPDATE_CONTACT) &&
    (await modelTakesTools(deps, repos, agent.model))
      ? { organizationId: agent.organizationId, contactId: conversation.contactId ?? null, identity, writes: [] }
      : null;
  // A conversation this turn starts gets its welcome first, like one created explicitly. OpenAI-compatible calls
  // carry their own history, so they get none.
  const welcome = isNew && !turn.history ? await produceWelcome(deps, agent, values, turn.promptSource) : null;
  const opening: ChatMessage[] = welcome ? [{ role: 'assistant', content: welcome.text }] : [];
  return {
    turn,
    stream,
    conversation,
    isNew,
    variablesChanged,
    attachments,
    knowledge,
    price,
    welcome,
    request: {
      model: agent.model,
      messages: [{ role: 'system', content: system }, ...opening, ...history, { role: 'user', content: input.message }],
      context: contextChunks(knowledge),
      ...(toolRun ? { tools: [UPDATE_CONTACT_TOOL] } : {}),
    },
    toolRun,
    startedAtMs,
    // After the welcome (stored at `now`), so listings order them welcome first.
    userMessageAt: new Date(now.getTime() + (welcome ? 1 : 0)).toISOString(),
  };
}

async function callModel(deps: ChatDeps, p: PreparedChat, options: RunOptions): Promise<ChatCompletion> {
  return completeWithTools(deps, { ...p.request, signal: options.signal }, (request) => callModelOnce(deps, request, options), p.toolRun);
}

async function callModelOnce(deps: ChatDeps, request: ChatRequest, options: RunOptions): Promise<ChatCompletion> {
  try {
    if (!options.onToken) return await deps.chatModel.complete(request);
    let completion: ChatCompletion | null = null;
    for await (const part of deps.chatModel.stream(request)) {
      if (part.type === 'token') await options.onToken(part.token);
      else completion = part.completion;
    }
    if (!completion) throw new DomainError('UPSTREAM_FAILED', 'The model stream ended without a final result');
    return completion;
  } catch (e) {
    throw toChatError(e);
  }
}

export interface RunOptions {
  /** Aborting stops generation; billing counts what was produced. */
  signal?: AbortSignal;
  /** Streams: called with each piece as the model emits it (awaited: backpressure reaches the model). */
  onToken?: (token: string) => void | Promise<void>;
  /**
   * Runs inside the transaction that stores the turn's messages (never for a turn held for an operator): writes
   * that commit with the answer or not at all (a channel reply's delivery row).
   */
  onAnswerStored?: (repos: Repositories, answer: { conversationId: string; messageId: string; text: string }) => Promise<void>;
}

/** The turn's user message as stored (attachments named in its metadata). */
function userMessageOf(deps: ChatDeps, p: PreparedChat): StoredMessage {
  return {
    id: deps.ids.uuid(),
    conversationId: p.conversation.id,
    organizationId: p.turn.agent.organizationId,
    role: 'user',
    content: p.turn.input.message,
    sources: [],
    promptTokens: 0,
    completionTokens: 0,
    costUsd: 0,
    model: null,
    responseMs: null,
    metadata: p.attachments.length
      ? { attachments: p.attachments.map((a) => ({ id: a.id, filename: a.filename, mimeType: a.mimeType })) }
      : {},
    createdAt: p.userMessageAt,
  };
}

/** Steps 10-12: call the model, save both messages and the billing event in one transaction, voice. */
export async function runChat(deps: ChatDeps, p: PreparedChat, options: RunOptions = {}): Promise<ChatResult> {
  const { agent, input } = p.turn;
  if (p.heldForOperator)
    return storeHeldTurn(
      deps,
      { agent, conversation: p.conversation, variablesChanged: p.variablesChanged, identity: p.turn.caller.identity ?? null },
      userMessageOf(deps, p),
    );
  const completion = await callModel(deps, p, options);
  const end = deps.clock.now();
  const assistantAt = new Date(Math.max(end.getTime(), Date.parse(p.userMessageAt) + 1)).toISOString();
  const messageId = deps.ids.uuid();
  const userMessage = userMessageOf(deps, p);
  const event = await deps.store.transaction(async (repos) => {
    if (p.isNew) {
      await repos.conversations.create({ ...p.conversation, updatedAt: assistantAt });
      if (p.welcome) await storeWelcome(deps, repos, agent, p.conversation.id, p.welcome, p.conversation.createdAt);
    } else if (p.variablesChanged)
      await repos.conversations.update(agent.organizationId, p.conversation.id, { variables: p.conversation.variables });
    const billed = await chargeModelCall(deps, repos, {
      organizationId: agent.organizationId,
      kind: 'chat',
      price: p.price,
      usage: completion.usage,
      reference: {
        agentId: agent.id,
        conversationId: p.conversation.id,
        messageId,
        finishReason: completion.finishReason,
        promptSource: p.turn.promptSource,
      },
    });
    const assistant: StoredMessage = {
      ...userMessage,
      id: messageId,
      role: 'assistant',
      content: completion.text,
      sources: p.knowledge.sources,
      promptTokens: completion.usage.promptTokens,
      completionTokens: completion.usage.completionTokens,
      costUsd: billed.costUsd,
      model: agent.model,
      responseMs: end.getTime() - p.startedAtMs,
      metadata: {
        finishReason: completion.finishReason,
        billingEventId: billed.id,
        ...(completion.toolCalls?.length ? { toolCalls: completion.toolCalls } : {}),
      },
      createdAt: assistantAt,
    };
    await repos.conversations.addMessages(agent.organizationId, p.conversation.id, [userMessage, assistant], p.isNew ? null : assistantAt);
    if (deps.contacts)
      await recordContactTurn(deps.contacts, repos, {
        organizationId: agent.organizationId,
        conversationId: p.conversation.id,
        contactId: p.conversation.contactId ?? null,
        identity: p.turn.caller.identity ?? null,
        userMessage: input.message,
        replied: completion.finishReason !== 'aborted' && !!completion.text,
        at: p.userMessageAt,
        toolWrites: p.toolRun?.writes,
      });
    if (options.onAnswerStored)
      await options.onAnswerStored(repos, { conversationId: p.conversation.id, messageId, text: completion.text });
    return billed;
  });
  recordTurn(deps, {
    organizationId: agent.organizationId,
    agentId: agent.id,
    conversationId: p.conversation.id,
    messageId,
    message: input.message,
    knowledgeBaseIds: p.knowledge.knowledgeBaseIds,
    chunks: p.knowledge.chunks,
    costUsd: event.costUsd,
    at: assistantAt,
  });
  const result: ChatResult = {
    response: completion.text,
    conversationId: p.conversation.id,
    messageId,
    sources: p.knowledge.sources,
    usage: { ...completion.usage, cost: event.costUsd },
    model: agent.model,
    finishReason: completion.finishReason,
    ...(completion.toolCalls?.length ? { toolCalls: completion.toolCalls } : {}),
  };
  if (input.includeVoice && completion.finishReason !== 'aborted') result.voice = await speak(deps, agent, completion.text);
  return result;
}

async function speak(deps: ChatDeps, agent: Agent, text: string): Promise<ChatResult['voice']> {
  if (!deps.speech || !text.trim()) return null;
  try {
    const audio = await deps.speech.synthesize(text, { voice: agent.voiceSettings?.voice ?? 'alloy', speed: agent.voiceSettings?.speed });
    return { audioBase64: audio.audio.toString('base64'), mimeType: audio.mimeType };
  } catch (e) {
    // The answer is saved and billed already: it is returned without audio rather than lost.
    deps.log?.('warn', 'speech synthesis failed; answering without voice', e);
    return null;
  }
}

/** prepareChat then runChat. */
export async function chat(deps: ChatDeps, turn: ChatTurn, options: RunOptions = {}): Promise<ChatResult> {
  return runChat(deps, await prepareChat(deps, turn), options);
}
