import type OpenAI from 'openai';

import type {
  ChatCompletion,
  ChatMessage,
  ChatModel,
  ChatRequest,
  ChatStreamPart,
  ChatToolCall,
  ChatToolChoice,
  TokenUsage,
} from '../../core/ports/chat-model';
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
  /** Whether the endpoint takes `tools` (default true; the catalogue's `capabilities.tools` still decides per model). */
  tools?: boolean;
}

export const openAiChatModelOptionsSchema = openAiOptionsSchema({
  models: { type: 'array', items: { type: 'string', minLength: 1 } },
  maxTokensParameter: { enum: ['max_tokens', 'max_completion_tokens'] },
  tools: { type: 'boolean', default: true },
});

type Params = OpenAI.Chat.Completions.ChatCompletionCreateParamsNonStreaming;
type MessageParam = OpenAI.Chat.Completions.ChatCompletionMessageParam;

/** Chat completions (plain and streamed) through OpenAI or a compatible endpoint. */
export class OpenAiChatModel implements ChatModel {
  readonly id = 'openai';
  private readonly connection: OpenAiConnection;
  private readonly models?: ReadonlySet<string>;
  private readonly maxTokensParameter: 'max_tokens' | 'max_completion_tokens';
  private readonly tools: boolean;

  constructor(options: OpenAiChatModelOptions) {
    this.connection = connect(options);
    this.tools = options.tools ?? true;
    this.models = options.models ? new Set(options.models) : undefined;
    this.maxTokensParameter = options.maxTokensParameter ?? (this.connection.compatible ? 'max_tokens' : 'max_completion_tokens');
  }

  supports(model: string): boolean {
    if (model.startsWith(`${this.connection.provider}/`)) return true;
    if (this.models) return this.models.has(model);
    return this.connection.compatible && !model.startsWith('local/');
  }

  supportsTools(model: string): boolean {
    return this.tools && this.supports(model);
  }

  async complete(request: ChatRequest): Promise<ChatCompletion> {
    try {
      const response = await this.connection.client.chat.completions.create(this.params(request), { signal: request.signal });
      const choice = response.choices?.[0];
      const text = choice?.message?.content ?? '';
      const toolCalls = (choice?.message?.tool_calls ?? []).flatMap((c) =>
        c.type === 'function' ? [{ id: c.id, name: c.function.name, arguments: c.function.arguments }] : [],
      );
      return {
        text,
        usage: usageOf(response.usage, request, text),
        finishReason: finishOf(choice?.finish_reason, toolCalls),
        ...withCalls(toolCalls),
      };
    } catch (error) {
      if (request.signal?.aborted) return { text: '', usage: usageOf(undefined, request, ''), finishReason: 'aborted' };
      throw mapOpenAiError(error, this.connection.provider);
    }
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    let text = '';
    let usage: OpenAI.CompletionUsage | undefined;
    let finish: string | null | undefined;
    // Tool calls arrive as deltas keyed by index: the first carries id and name, later ones append arguments.
    const calls = new Map<number, ChatToolCall>();
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
        for (const delta of choice.delta?.tool_calls ?? []) {
          const call = calls.get(delta.index) ?? { id: '', name: '', arguments: '' };
          if (delta.id) call.id = delta.id;
          if (delta.function?.name) call.name += delta.function.name;
          if (delta.function?.arguments) call.arguments += delta.function.arguments;
          calls.set(delta.index, call);
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
    const toolCalls = [...calls.entries()].sort(([a], [b]) => a - b).map(([, call]) => call);
    yield {
      type: 'done',
      completion: { text, usage: usageOf(usage, request, text), finishReason: finishOf(finish, toolCalls), ...withCalls(toolCalls) },
    };
  }

  private params(request: ChatRequest): Params {
    return {
      model: providerModelName(this.connection, request.model),
      messages: request.messages.map(messageParam),
      ...(request.maxTokens !== undefined ? { [this.maxTokensParameter]: request.maxTokens } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(request.tools?.length && this.supportsTools(request.model)
        ? {
            tools: request.tools.map((t) => ({
              type: 'function' as const,
              function: {
                name: t.name,
                ...(t.description ? { description: t.description } : {}),
                ...(t.parameters ? { parameters: t.parameters } : {}),
              },
            })),
            ...(request.toolChoice ? { tool_choice: toolChoiceParam(request.toolChoice) } : {}),
          }
        : {}),
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

function messageParam(m: ChatMessage): MessageParam {
  if (m.role === 'tool') return { role: 'tool', content: m.content, tool_call_id: m.toolCallId ?? '' };
  if (m.role === 'assistant' && m.toolCalls?.length)
    return {
      role: 'assistant',
      content: m.content || null,
      tool_calls: m.toolCalls.map((c) => ({ id: c.id, type: 'function', function: { name: c.name, arguments: c.arguments } })),
    };
  return { role: m.role, content: m.content };
}

function toolChoiceParam(choice: ChatToolChoice): OpenAI.Chat.Completions.ChatCompletionToolChoiceOption {
  return typeof choice === 'string' ? choice : { type: 'function', function: { name: choice.name } };
}

function finishOf(reason: string | null | undefined, toolCalls: ChatToolCall[]): ChatCompletion['finishReason'] {
  if (reason === 'length') return 'length';
  // Some compatible servers say `stop` while returning calls: the calls decide.
  return reason === 'tool_calls' || toolCalls.length ? 'tool_calls' : 'stop';
}

const withCalls = (toolCalls: ChatToolCall[]) => (toolCalls.length ? { toolCalls } : {});

/** Provider-reported usage, or an estimate when the provider sent none (compatible servers, aborted streams). */
function usageOf(usage: OpenAI.CompletionUsage | null | undefined, request: ChatRequest, text: string): TokenUsage {
  if (usage) return { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens, totalTokens: usage.total_tokens };
  const promptTokens = request.messages.reduce((sum, m) => sum + estimateTokens(m.content), 0);
  const completionTokens = estimateTokens(text);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}
