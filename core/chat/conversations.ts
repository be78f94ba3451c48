import { loadAgent } from '../agents/agent-access';
import { signContextToken } from '../conversations/context-token';
import type { Conversation, ConversationSummary, StoredMessage, VariableValues } from '../conversations/conversation';
import { loadConversation, viewerOf } from '../conversations/conversation-access';
import type { Actor } from '../identity/actor';
import { DomainError } from '../shared/errors';
import type { ChatDeps } from './chat-deps';
import { checkVariables } from './chat-input';

/** Get-conversation view: metadata and the non-sensitive variables (sensitive values are never returned). */
export function toConversationView(c: Conversation, messageCount: number) {
  return {
    id: c.id,
    botId: c.agentId,
    userId: c.userId,
    title: c.title,
    platform: c.platform,
    messageCount,
    variables: c.variables,
    sensitiveVariableNames: Object.keys(c.sensitiveVariables).sort(),
    createdAt: c.createdAt,
    updatedAt: c.updatedAt,
  };
}

export function toMessageView(m: StoredMessage) {
  return {
    id: m.id,
    role: m.role,
    content: m.content,
    sources: m.sources,
    usage: {
      promptTokens: m.promptTokens,
      completionTokens: m.completionTokens,
      totalTokens: m.promptTokens + m.completionTokens,
      cost: m.costUsd,
    },
    model: m.model,
    createdAt: m.createdAt,
  };
}

export interface ConversationQuery {
  botId?: string;
  userId?: string;
  platform?: string;
  limit: number;
  offset: number;
}

/**
 * `GET /api/conversations`: the caller's own conversations by default. Another member's (userId) needs an
 * owner or admin (403 otherwise).
 */
export async function listConversations(deps: ChatDeps, actor: Actor, q: ConversationQuery) {
  const viewer = viewerOf(actor);
  const userId = q.userId ?? actor.userId;
  if (userId !== actor.userId && !viewer.seesAll)
    throw new DomainError('FORBIDDEN', "Only owners and admins may list other members' conversations");
  const { items, total } = await deps.store.repos.conversations.list(
    {
      organizationId: viewer.organizationId,
      userId,
      ...(q.botId ? { agentId: q.botId } : {}),
      ...(q.platform ? { platform: q.platform } : {}),
    },
    { limit: q.limit, offset: q.offset },
  );
  return {
    conversations: items.map((c: ConversationSummary) => toConversationView(c, c.messageCount)),
    pagination: { limit: q.limit, offset: q.offset, total, hasMore: q.offset + items.length < total },
  };
}

export async function getConversation(deps: ChatDeps, actor: Actor, id: string) {
  const repos = deps.store.repos;
  const c = await loadConversation(repos, viewerOf(actor), id);
  return { conversation: toConversationView(c, await repos.conversations.countMessages(c.organizationId, c.id)) };
}

export async function listMessages(deps: ChatDeps, actor: Actor, id: string) {
  const repos = deps.store.repos;
  const c = await loadConversation(repos, viewerOf(actor), id);
  return { messages: (await repos.conversations.messages(c.organizationId, c.id)).map(toMessageView) };
}

export interface VariablesInput {
  /** name -> value; null removes the variable. */
  variables: VariableValues;
  /** Names (keys of `variables`) stored as sensitive: usable in prompts, never returned. */
  sensitive?: string[];
}

const variablesView = (c: Conversation) => ({ variables: c.variables, sensitive: Object.keys(c.sensitiveVariables).sort() });

/**
 * `POST /api/bots/:id/conversations/:convId/variables`: merges into the conversation's variable store. A name is
 * either plain or sensitive: writing it moves it to the store its `sensitive` flag says. Names set by a signed
 * context token are read-only (409 Conflict).
 */
export async function setConversationVariables(
  deps: ChatDeps,
  actor: Actor,
  agentId: string,
  conversationId: string,
  input: VariablesInput,
) {
  const variables = checkVariables(input.variables);
  const sensitive = new Set(input.sensitive ?? []);
  for (const name of sensitive) {
    if (!(name in variables))
      throw new DomainError('VALIDATION', `sensitive names a variable that is not in variables: ${name}`, [
        { field: 'sensitive', message: 'unknown variable' },
      ]);
  }
  return deps.store.transaction(async (repos) => {
    const agent = await loadAgent(repos, actor, agentId, 'use');
    const c = await loadConversation(repos, viewerOf(actor), conversationId, agent.id);
    // Values from a signed context token were vouched for by the agent's server: the conversation cannot replace them.
    const signed = new Set(c.signedVariableNames ?? []);
    const locked = Object.keys(variables).filter((name) => signed.has(name));
    if (locked.length) {
      throw new DomainError('CONFLICT', `These variables come from a signed context token and are read-only: ${locked.join(', ')}`, {
        readOnly: locked,
      });
    }
    const plain = { ...c.variables };
    const secret = { ...c.sensitiveVariables };
    for (const [name, value] of Object.entries(variables)) {
      delete plain[name];
      delete secret[name];
      if (value === null) continue;
      (sensitive.has(name) ? secret : plain)[name] = value;
    }
    if (Object.keys(plain).length + Object.keys(secret).length > 200)
      throw new DomainError('VALIDATION', 'A conversation holds at most 200 variables');
    const updated = await repos.conversations.update(c.organizationId, c.id, {
      variables: plain,
      sensitiveVariables: secret,
      updatedAt: deps.clock.now().toISOString(),
    });
    return variablesView(updated!);
  });
}

export async function getConversationVariables(deps: ChatDeps, actor: Actor, agentId: string, conversationId: string) {
  const repos = deps.store.repos;
  const agent = await loadAgent(repos, actor, agentId, 'use');
  return variablesView(await loadConversation(repos, viewerOf(actor), conversationId, agent.id));
}

/** `POST /api/bots/:id/context-token`: a signed, encrypted token carrying sensitive variables (see context-token.ts). */
export async function issueContextToken(
  deps: ChatDeps,
  actor: Actor,
  agentId: string,
  input: { variables: VariableValues; expiresInSeconds?: number },
) {
  const agent = await loadAgent(deps.store.repos, actor, agentId, 'use');
  const variables = checkVariables(input.variables);
  const ttl = input.expiresInSeconds ?? deps.settings.contextTokenDefaultTtlSeconds;
  if (!(ttl >= 1 && ttl <= deps.settings.contextTokenMaxTtlSeconds)) {
    throw new DomainError('VALIDATION', `expiresInSeconds must be between 1 and ${deps.settings.contextTokenMaxTtlSeconds}`);
  }
  const iat = Math.floor(deps.clock.now().getTime() / 1000);
  const contextToken = signContextToken(deps.settings.contextTokenSecret, {
    agentId: agent.id,
    organizationId: agent.organizationId,
    variables,
    iat,
    exp: iat + ttl,
  });
  return { contextToken, expiresAt: new Date((iat + ttl) * 1000).toISOString(), variableNames: Object.keys(variables).sort() };
}
