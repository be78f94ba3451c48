/** A function the model may call (OpenAI-compatible tools). `parameters` is a JSON schema of the arguments. */
export interface ChatTool {
  name: string;
  description?: string;
  parameters?: Record<string, unknown>;
}

/** `auto` (default), `none`, `required`, or one named tool. */
export type ChatToolChoice = 'auto' | 'none' | 'required' | { name: string };

/** A call the model asked for; `arguments` is the JSON text the model produced (not yet validated). */
export interface ChatToolCall {
  id: string;
  name: string;
  arguments: string;
}

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant' | 'tool';
  content: string;
  /** On an assistant message: the tool calls it made. */
  toolCalls?: ChatToolCall[];
  /** On a tool message: the call it answers. */
  toolCallId?: string;
}

export interface ChatContextChunk {
  content: string;
  documentTitle?: string;
}

export interface ChatRequest {
  /** Model id in provider/name form. */
  model: string;
  messages: ChatMessage[];
  /** Retrieved context; the local extractive provider answers from it, remote providers get it inside messages. */
  context?: ChatContextChunk[];
  maxTokens?: number;
  temperature?: number;
  /** Only sent to models whose adapter says `supportsTools`. */
  tools?: ChatTool[];
  toolChoice?: ChatToolChoice;
  /**
   * Ask for JSON matching this schema (structured output). Providers that support it constrain the reply;
   * the others ignore it, so callers still validate what comes back.
   */
  responseFormat?: { type: 'json_schema'; name: string; schema: Record<string, unknown> };
  signal?: AbortSignal;
}

export interface TokenUsage {
  promptTokens: number;
  completionTokens: number;
  totalTokens: number;
}

export interface ChatCompletion {
  text: string;
  usage: TokenUsage;
  /** `tool_calls`: the model stopped to call the tools in `toolCalls`. */
  finishReason: 'stop' | 'length' | 'aborted' | 'tool_calls';
  toolCalls?: ChatToolCall[];
}

export type ChatStreamPart = { type: 'token'; token: string } | { type: 'done'; completion: ChatCompletion };

/**
 * Provider errors surface as DomainError: PROVIDER_LIMIT_REACHED for credit or token limits, RATE_LIMITED,
 * UPSTREAM_FAILED otherwise. Aborting the signal stops generation; the final usage counts what was produced.
 */
export interface ChatModel {
  readonly id: string;
  /** True when this adapter serves the given model id. */
  supports(model: string): boolean;
  /** True when the adapter sends `tools` to this model and returns its tool calls; absent means never. */
  supportsTools?(model: string): boolean;
  complete(request: ChatRequest): Promise<ChatCompletion>;
  stream(request: ChatRequest): AsyncIterable<ChatStreamPart>;
}
export const CHAT_MODEL = Symbol.for('ChatModel');
