import type { Agent } from '../agents/agent';
import { loadAgent } from '../agents/agent-access';
import { chargeModelCall, ensureCreditsFor, modelPrice } from '../chat/chat-billing';
import type { ChatDeps } from '../chat/chat-deps';
import { checkVariables } from '../chat/chat-input';
import { toChatError } from '../chat/chat-pipeline';
import type { Actor } from '../identity/actor';
import { buildInstructions, type PromptSource, resolveWelcome } from '../prompts/resolve-prompt';
import { verifyContextToken } from './context-token';
import type { Conversation, StoredMessage } from './conversation';
import { type ConversationViewer, templateValues, viewerOf } from './conversation-access';

export interface NewConversationInput {
  variables?: Record<string, unknown>;
  /** From `POST /api/bots/:id/context-token`: its variables become sensitive variables. */
  context_token?: string;
}

/**
 * Starts a conversation and produces its welcome message (DECISIONS "Welcome messages"): no welcome section
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
  const welcome = await resolveWelcome(repos, agent.id, promptSource, values);

  let text: string | null = welcome?.mode === 'fixed' ? welcome.text : null;
  let generated: {
    usage: { promptTokens: number; completionTokens: number; totalTokens: number };
    price: Awaited<ReturnType<typeof modelPrice>>;
  } | null = null;
  if (welcome?.mode === 'generated') {
    const price = await modelPrice(repos, agent.model);
    await ensureCreditsFor(deps, agent.organizationId, price);
    const instructions = await buildInstructions(repos, agent, promptSource, values, deps.settings.systemDefaultPrompt);
    try {
      const completion = await deps.chatModel.complete({
        model: agent.model,
        messages: [
          { role: 'system', content: instructions },
          { role: 'user', content: welcome.prompt },
        ],
      });
      text = completion.text;
      generated = { usage: completion.usage, price };
    } catch (e) {
      throw toChatError(e);
    }
  }

  await deps.store.transaction(async (repos) => {
    await repos.conversations.create(conversation);
    if (text === null) return;
    const messageId = deps.ids.uuid();
    const billed = generated
      ? await chargeModelCall(deps, repos, {
          organizationId: agent.organizationId,
          kind: 'welcome_message',
          price: generated.price,
          usage: generated.usage,
          reference: { agentId: agent.id, conversationId: conversation.id, messageId },
        })
      : null;
    const message: StoredMessage = {
      id: messageId,
      conversationId: conversation.id,
      organizationId: agent.organizationId,
      role: 'assistant',
      content: text,
      sources: [],
      promptTokens: generated?.usage.promptTokens ?? 0,
      completionTokens: generated?.usage.completionTokens ?? 0,
      costUsd: billed?.costUsd ?? 0,
      model: generated ? agent.model : null,
      responseMs: generated ? deps.clock.now().getTime() - now.getTime() : null,
      metadata: { welcome: welcome!.mode },
      createdAt: now.toISOString(),
    };
    await repos.conversations.addMessages(agent.organizationId, conversation.id, [message], null);
  });
  return { conversationId: conversation.id, welcomeMessage: text };
}

/** `POST /api/bots/:id/conversations` (permission use on the agent). */
export async function createConversation(deps: ChatDeps, actor: Actor, agentId: string, input: NewConversationInput) {
  const agent = await loadAgent(deps.store.repos, actor, agentId, 'use');
  return startConversation(deps, agent, { ...viewerOf(actor), platform: 'web' }, input);
}
