/**
 * The welcome message of a new conversation (docs/contracts.md "Welcome messages", spec 4.4: sent at the start of every
 * new conversation on every channel), shared by explicit creation (`POST .../conversations`) and by a chat that
 * starts its conversation implicitly. Producing it (a model call for `generated`) happens before anything is
 * written; storing it (first message of the conversation, billed as `welcome_message` when generated) happens
 * inside the caller's transaction, so a conversation never exists without its welcome.
 */
import type { Agent } from '../agents/agent';
import type { StoredMessage } from '../conversations/conversation';
import type { TokenUsage } from '../ports/chat-model';
import type { Repositories } from '../ports/repositories';
import { buildInstructions, type PromptSource, resolveWelcome } from '../prompts/resolve-prompt';
import type { TemplateValues } from '../prompts/template';
import { chargeModelCall, ensureCreditsFor, type ModelPrice, modelPrice } from './chat-billing';
import type { ChatDeps } from './chat-deps';
import { toChatError } from './chat-errors';

export interface PreparedWelcome {
  mode: 'fixed' | 'generated';
  text: string;
  /** Set for a generated welcome: what the model call used, billed when the welcome is stored. */
  generated: { usage: TokenUsage; price: ModelPrice; ms: number } | null;
}

/** Renders a fixed welcome or generates one with the agent's model (credits checked first); null when none is configured. */
export async function produceWelcome(
  deps: ChatDeps,
  agent: Agent,
  values: TemplateValues,
  promptSource: PromptSource,
): Promise<PreparedWelcome | null> {
  const repos = deps.store.repos;
  const welcome = await resolveWelcome(repos, agent.id, promptSource, values);
  if (!welcome) return null;
  if (welcome.mode === 'fixed') return { mode: 'fixed', text: welcome.text, generated: null };
  const price = await modelPrice(repos, agent.model);
  await ensureCreditsFor(deps, agent.organizationId, price);
  const instructions = await buildInstructions(repos, agent, promptSource, values, deps.settings.systemDefaultPrompt);
  const started = deps.clock.now().getTime();
  try {
    const completion = await deps.chatModel.complete({
      model: agent.model,
      messages: [
        { role: 'system', content: instructions },
        { role: 'user', content: welcome.prompt },
      ],
    });
    return {
      mode: 'generated',
      text: completion.text,
      generated: { usage: completion.usage, price, ms: deps.clock.now().getTime() - started },
    };
  } catch (e) {
    throw toChatError(e);
  }
}

/** Writes the welcome as an assistant message of the conversation (call inside `store.transaction`). */
export async function storeWelcome(
  deps: ChatDeps,
  repos: Repositories,
  agent: Agent,
  conversationId: string,
  welcome: PreparedWelcome,
  createdAt: string,
): Promise<StoredMessage> {
  const messageId = deps.ids.uuid();
  const generated = welcome.generated;
  const billed = generated
    ? await chargeModelCall(deps, repos, {
        organizationId: agent.organizationId,
        kind: 'welcome_message',
        price: generated.price,
        usage: generated.usage,
        reference: { agentId: agent.id, conversationId, messageId },
      })
    : null;
  const message: StoredMessage = {
    id: messageId,
    conversationId,
    organizationId: agent.organizationId,
    role: 'assistant',
    content: welcome.text,
    sources: [],
    promptTokens: generated?.usage.promptTokens ?? 0,
    completionTokens: generated?.usage.completionTokens ?? 0,
    costUsd: billed?.costUsd ?? 0,
    model: generated ? agent.model : null,
    responseMs: generated ? generated.ms : null,
    metadata: { welcome: welcome.mode },
    createdAt,
  };
  await repos.conversations.addMessages(agent.organizationId, conversationId, [message], null);
  return message;
}
