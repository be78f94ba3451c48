/**
 * The ChatModel that serves every model id the platform can call, by routing to the chat providers
 * selected by configuration (CHAT_PROVIDERS). A provider owns model id prefixes (`cohere/`); a catch-all
 * provider (an OpenAI-compatible endpoint) serves other ids it supports. A model no selected provider
 * serves is a clear 400 naming what to configure, instead of a failed network call.
 */
import type { ChatRouting } from '../adapters/kit/port-shapes';
import type { ChatCompletion, ChatModel, ChatRequest, ChatStreamPart } from '../core/ports/chat-model';
import { DomainError } from '../core/shared/errors';

/** A registered chat provider: its routing rules, and its adapter when selected (else null). */
export interface ChatProviderRoute {
  routing: ChatRouting;
  model: ChatModel | null;
}

export class ChatModelRouter implements ChatModel {
  readonly id = 'router';

  /** `extra` models are consulted first (tests and benchmarks register fake or instant models). */
  constructor(
    private readonly providers: readonly ChatProviderRoute[],
    private readonly extra: readonly ChatModel[] = [],
  ) {}

  private owner(model: string): ChatProviderRoute | undefined {
    return this.providers.find((p) => p.routing.modelPrefixes.some((prefix) => model.startsWith(prefix)));
  }

  /** The adapter for a model id, or null. */
  route(model: string): ChatModel | null {
    const extra = this.extra.find((m) => m.supports(model));
    if (extra) return extra;
    const owner = this.owner(model);
    if (owner) return owner.model?.supports(model) ? owner.model : null;
    return this.providers.find((p) => p.routing.catchAll && p.model?.supports(model))?.model ?? null;
  }

  supports(model: string): boolean {
    return this.route(model) !== null;
  }

  supportsTools(model: string): boolean {
    return this.route(model)?.supportsTools?.(model) ?? false;
  }

  private pick(model: string): ChatModel {
    const adapter = this.route(model);
    if (adapter) return adapter;
    const needs =
      this.owner(model)?.routing.needs ??
      this.providers.find((p) => p.routing.catchAll)?.routing.catchAll?.needs ??
      'a chat provider serving it (CHAT_PROVIDERS)';
    throw new DomainError(
      'VALIDATION',
      `The model ${model} is not available on this platform: it needs ${needs}. Choose another model for the agent or configure the provider.`,
      { model, provider: model.split('/')[0] },
    );
  }

  complete(request: ChatRequest): Promise<ChatCompletion> {
    return this.pick(request.model).complete(request);
  }

  stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    return this.pick(request.model).stream(request);
  }
}
