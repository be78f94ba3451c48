import { cohereChatProvider } from '../../adapters/cohere/cohere.adapters';
import { definePort } from '../../adapters/kit/port-registry';
import type { ChatProviderDefinition } from '../../adapters/kit/port-shapes';
import { localChatProvider } from '../../adapters/local-ai/local-ai.adapters';
import { openAiChatProvider } from '../../adapters/openai/openai.adapters';
import { CHAT_MODEL, type ChatModel } from '../../core/ports/chat-model';
import { ChatModelRouter } from '../chat-model-router';
import type { PlatformPort } from './platform-port';

/** Chat models consulted before the configured providers; empty unless a test or benchmark rebinds it. */
export const EXTRA_CHAT_MODELS = Symbol.for('ExtraChatModels');

const registry = definePort<ChatModel, ChatProviderDefinition>({
  key: 'CHAT_PROVIDERS',
  description: 'Chat providers, routed by model id',
  multiple: true,
  token: CHAT_MODEL,
  adapters: [localChatProvider, cohereChatProvider, openAiChatProvider],
});

/** CHAT_MODEL resolves to the router over every selected provider (default: local plus those with a key). */
export const chatPort: PlatformPort = {
  registry,
  bind(container, settings, context) {
    container.bind<ChatModel[]>(EXTRA_CHAT_MODELS).toConstantValue([]);
    container
      .bind<ChatModel>(CHAT_MODEL)
      .toDynamicValue(async (ctx) => {
        const selected = await registry.create(settings, context);
        const routes = registry.definition.adapters.map((routing) => ({
          routing,
          model: selected.find((s) => s.definition === routing)?.instance ?? null,
        }));
        return new ChatModelRouter(routes, await ctx.getAsync<ChatModel[]>(EXTRA_CHAT_MODELS));
      })
      .inSingletonScope();
  },
};
