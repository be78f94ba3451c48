export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
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
  finishReason: 'stop' | 'length' | 'aborted';
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
  complete(request: ChatRequest): Promise<ChatCompletion>;
  stream(request: ChatRequest): AsyncIterable<ChatStreamPart>;
}
export const CHAT_MODEL = Symbol.for('ChatModel');
