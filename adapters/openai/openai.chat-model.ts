import type OpenAI from 'openai';

import type { ChatCompletion, ChatModel, ChatRequest, ChatStreamPart, TokenUsage } from '../../core/ports/chat-model';
import { estimateTokens } from '../../core/shared/token-estimate';
import { connect, type OpenAiConnection, type OpenAiConnectionOptions, openAiOptionsSchema, providerModelName } from './openai-connection';
import { mapOpenAiError } from './openai-errors';

export interface OpenAiChatModelOptions extends OpenAiConnectionOptions {
  /**
   * Catalogue ids this adapter also serves as they are (a compatible endpoint's `meta-llama/llama-3.1-8b`).
   * Without it, a compatible endpoint serves every id except `local/...`; the official API serves `openai/...` only.
   */
  models?: string[];
  /** Name of the output-length parameter. Default `max_completion_tokens` (official API), `max_tokens` (compatible). */
  maxTokensParameter?: 'max_tokens' | 'max_completion_tokens';
}

export const openAiChatModelOptionsSchema = openAiOptionsSchema({
  models: { type: 'array', items: { type: 'string', minLength: 1 } },
  maxTokensParameter: { enum: ['max_tokens', 'max_completion_tokens'] },
});

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;

/** Chat completions (plain and streamed) through OpenAI or a compatible endpoint. */
export class OpenAiChatModel implements ChatModel {
  readonly id = 'openai';
  private readonly connection: OpenAiConnection;
  private readonly models?: ReadonlySet<string>;
  private readonly maxTokensParameter: 'max_tokens' | 'max_completion_tokens';

  constructor(options: OpenAiChatModelOptions) {
    this.connection = connect(options);
    this.models = options.models ? new Set(options.models) : undefined;
    this.maxTokensParameter = options.maxTokensParameter ?? (this.connection.compatible ? 'max_tokens' : 'max_completion_tokens');
  }

  supports(model: string): boolean {
    if (model.startsWith(`${this.connection.provider}/`)) return true;
    if (this.models) return this.models.has(model);
    return this.connection.compatible && !model.startsWith('local/');
  }

  async complete(request: ChatRequest): Promise<ChatCompletion> {
    try {
      const response = await this.connection.client.chat.completions.create(this.params(request), { signal: request.signal });
      const choice = response.choices?.[0];
      const text = choice?.message?.content ?? '';
      return { text, usage: usageOf(response.usage, request, text), finishReason: choice?.finish_reason === 'length' ? 'length' : 'stop' };
    } catch (error) {
      if (request.signal?.aborted) return { text: '', usage: usageOf(undefined, request, ''), finishReason: 'aborted' };
      throw mapOpenAiError(error, this.connection.provider);
    }
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null | undefined;
    try {
      const stream = await this.connection.client.chat.completions.create(
        { ...this.params(request), stream: true, stream_options: { include_usage: true } },
        { signal: request.signal },
      );
      for await (const chunk of stream) {
        if (chunk.usage) usage = chunk.usage;
        const choice = chunk.choices?.[0];
        if (!choice) continue;
        const token = choice.delta?.content;
        if (token) {
          text += token;
          yield { type: 'token', token };
        }
        if (choice.finish_reason) finish = choice.finish_reason;
      }
    } catch (error) {
      if (!request.signal?.aborted) throw mapOpenAiError(error, this.connection.provider);
    }
    if (request.signal?.aborted && !finish) {
      // the provider's usage chunk never came: count what was produced
      yield { type: 'done', completion: { text, usage: usageOf(undefined, request, text), finishReason: 'aborted' } };
      return;
    }
    yield {
      type: 'done',
      completion: { text, usage: usageOf(usage, request, text), finishReason: finish === 'length' ? 'length' : 'stop' },
    };
  }

  private params(request: ChatRequest): Params {
    return {
      model: providerModelName(this.connection, request.model),
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      ...(request.maxTokens !== undefined ? { [this.maxTokensParameter]: request.maxTokens } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.responseFormat
        ? {
            response_format: {
              type: 'json_schema' as const,
              json_schema: { name: request.responseFormat.name, schema: request.responseFormat.schema, strict: false },
            },
          }
        : {}),
    };
  }
}

/** Provider-reported usage, or an estimate when the provider sent none (compatible servers, aborted streams). */
function usageOf(usage: OpenAI.CompletionUsage | null | undefined, request: ChatRequest, text: string): TokenUsage {
  if (usage) return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens };
  const promptTokens = request.messages.reduce((sum, m) => sum + estimateTokens(m.content), 0);
  const completionTokens = estimateTokens(text);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}
