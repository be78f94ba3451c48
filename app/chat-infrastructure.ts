/**
 * Chat adapters chosen by configuration: the ChatModelRouter (which adapter serves a model id) and the
 * optional speech synthesizer for voice answers. Optional SDKs are imported only when configured.
 */
import type { PlatformConfig } from '../adapters/config/platform-config';
import type { ChatCompletion, ChatModel, ChatRequest, ChatStreamPart } from '../core/ports/chat-model';
import type { SpeechSynthesizer } from '../core/ports/media-understanding';
import { DomainError } from '../core/shared/errors';

export interface ChatAdapters {
  /** Serves every model id the platform can call. */
  chatModel: ChatModelRouter;
  speech: SpeechSynthesizer | null;
}

export interface ChatAdapterOverrides {
  /** Consulted before the configured providers (tests and benchmarks register fake or instant models). */
  chatModels?: ChatModel[];
  /** Replaces the OpenAI-compatible provider (tests: a client pointed at a fake server). */
  openai?: ChatModel | null;
  speech?: SpeechSynthesizer | null;
}

export interface ChatModelRoutes {
  local: ChatModel;
  /** `cohere/...` when COHERE_API_KEY is set. */
  cohere: ChatModel | null;
  /** Everything else when OPENAI_API_KEY (and OPENAI_BASE_URL for a compatible endpoint) is set. */
  openai: ChatModel | null;
  extra?: ChatModel[];
}

/**
 * Picks the adapter by model id prefix: `local/` -> the offline local provider, `cohere/` -> Cohere when
 * configured, anything else -> OpenAI or the configured OpenAI-compatible endpoint. A model no configured
 * provider serves is a clear 400 instead of a failed network call.
 */
export class ChatModelRouter implements ChatModel {
  readonly id = 'router';

  constructor(private readonly routes: ChatModelRoutes) {}

  /** The adapter for a model id, or null. */
  route(model: string): ChatModel | null {
    const extra = this.routes.extra?.find((m) => m.supports(model));
    if (extra) return extra;
    if (model.startsWith('local/')) return this.routes.local;
    if (model.startsWith('cohere/')) return this.routes.cohere;
    return this.routes.openai?.supports(model) ? this.routes.openai : null;
  }

  supports(model: string): boolean {
    return this.route(model) !== null;
  }

  private pick(model: string): ChatModel {
    const adapter = this.route(model);
    if (adapter) return adapter;
    const provider = model.split('/')[0];
    const needs =
      provider === 'cohere'
        ? 'a Cohere key (COHERE_API_KEY)'
        : provider === 'openai'
          ? 'an OpenAI key (OPENAI_API_KEY)'
          : 'an OpenAI-compatible endpoint serving it (OPENAI_API_KEY with OPENAI_BASE_URL)';
    throw new DomainError(
      'VALIDATION',
      `The model ${model} is not available on this platform: it needs ${needs}. Choose another model for the agent or configure the provider.`,
      {
        model,
        provider,
      },
    );
  }

  complete(request: ChatRequest): Promise<ChatCompletion> {
    return this.pick(request.model).complete(request);
  }

  stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    return this.pick(request.model).stream(request);
  }
}

export async function buildChatAdapters(config: PlatformConfig, overrides: ChatAdapterOverrides = {}): Promise<ChatAdapters> {
  const { LocalChatModel } = await import('../adapters/local-ai/local-extractive.chat-model');
  const { openai, cohere } = config.providers;
  let openaiModel: ChatModel | null = overrides.openai !== undefined ? overrides.openai : null;
  if (overrides.openai === undefined && openai) {
    const { OpenAiChatModel } = await import('../adapters/openai/openai.chat-model');
    openaiModel = new OpenAiChatModel({ apiKey: openai.apiKey, baseURL: openai.baseURL });
  }
  let cohereModel: ChatModel | null = null;
  if (cohere) {
    const { CohereChatModel } = await import('../adapters/cohere/cohere.chat-model');
    cohereModel = new CohereChatModel({ apiKey: cohere.apiKey, baseURL: cohere.baseURL });
  }
  let speech: SpeechSynthesizer | null = overrides.speech !== undefined ? overrides.speech : null;
  if (overrides.speech === undefined && openai) {
    const { OpenAiSpeechSynthesizer } = await import('../adapters/openai/openai.speech-synthesizer');
    speech = new OpenAiSpeechSynthesizer({ apiKey: openai.apiKey, baseURL: openai.baseURL });
  }
  return {
    chatModel: new ChatModelRouter({ local: new LocalChatModel(), cohere: cohereModel, openai: openaiModel, extra: overrides.chatModels }),
    speech,
  };
}
