import type { Agent } from '../agents/agent';
import { loadAgent } from '../agents/agent-access';
import { verifyContextToken } from '../conversations/context-token';
import type { Conversation } from '../conversations/conversation';
import { type ConversationViewer, templateValues, viewerOf } from '../conversations/conversation-access';
import type { Actor } from '../identity/actor';
import type { PromptSource } from '../prompts/resolve-prompt';
import type { ChatDeps } from './chat-deps';
import { checkVariables } from './chat-input';
import { produceWelcome, storeWelcome } from './welcome-message';

export interface NewConversationInput {
  variables?: Record<string, unknown>;
  /** From `POST /api/bots/:id/context-token`: its variables become sensitive variables. */
  context_token?: string;
}

/**
 * Starts a conversation and produces its welcome message (docs/contracts.md "Welcome messages"): no welcome section
 * or empty content gives none; `fixed` renders the content with the conversation's variables; `generated`
 * sends the rendered prompt to the agent's model and bills it (`welcome_message`, credits checked first).
 * The welcome is stored as the conversation's first assistant message.
 */
export async function startConversation(
  deps: ChatDeps,
  agent: Agent,
  viewer: ConversationViewer & { platform: string },
  input: NewConversationInput,
  promptSource: PromptSource = 'live',
): Promise<{ conversationId: string; welcomeMessage: string | null }> {
  const repos = deps.store.repos;
  const now = deps.clock.now();
  const variables = checkVariables(input.variables);
  const sensitive = input.context_token
    ? verifyContextToken(deps.settings.contextTokenSecret, input.context_token, {
        agentId: agent.id,
        organizationId: agent.organizationId,
        nowSeconds: Math.floor(now.getTime() / 1000),
      }).variables
    : {};
  const conversation: Conversation = {
    id: deps.ids.uuid(),
    organizationId: agent.organizationId,
    agentId: agent.id,
    userId: viewer.userId,
    anonymousId: viewer.anonymousId ?? null,
    platform: viewer.platform,
    title: null,
    variables,
    sensitiveVariables: sensitive,
    signedVariableNames: Object.keys(sensitive),
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
    deletedAt: null,
  };
  const org = await repos.organizations.findById(agent.organizationId);
  const values = templateValues(agent, org, conversation, variables, sensitive);
  const welcome = await produceWelcome(deps, agent, values, promptSource);
  await deps.store.transaction(async (repos) => {
    await repos.conversations.create(conversation);
    if (welcome) await storeWelcome(deps, repos, agent, conversation.id, welcome, now.toISOString());
  });
  return { conversationId: conversation.id, welcomeMessage: welcome?.text ?? null };
}

/** `POST /api/bots/:id/conversations` (permission use on the agent). */
export async function createConversation(deps: ChatDeps, actor: Actor, agentId: string, input: NewConversationInput) {
  const agent = await loadAgent(deps.store.repos, actor, agentId, 'use');
  return startConversation(deps, agent, { ...viewerOf(actor), platform: 'web' }, input);
}
