import type { ChatCompletion, ChatModel, ChatRequest, ChatStreamPart, TokenUsage } from '../../core/ports/chat-model';
import { DomainError } from '../../core/shared/errors';
import { estimateTokens } from '../../core/shared/token-estimate';
import { extractiveAnswer } from './extractive-answer';

/** The local provider serves every model id under `local/`; `local/extractive` is the one in the catalogue. */
export const LOCAL_CHAT_MODEL = 'local/extractive';
export const LOCAL_MODEL_PREFIX = 'local/';

export type LocalChatModelOptions = Record<string, never>;
export const localChatModelOptionsSchema = { type: 'object', properties: {}, additionalProperties: false } as const;

/** Word-sized pieces whose concatenation is the text ("Hello ", "world."). */
const WORD_PIECES = /\S+\s*/g;

function promptTokens(request: ChatRequest): number {
  let tokens = 0;
  for (const m of request.messages) tokens += estimateTokens(m.content);
  for (const c of request.context ?? []) tokens += estimateTokens(c.content);
  return tokens;
}

function usage(prompt: number, completionText: string): TokenUsage {
  const completionTokens = estimateTokens(completionText);
  return { promptTokens: prompt, completionTokens, totalTokens: prompt + completionTokens };
}

/** Trims the answer to `maxTokens` (estimated), on a word boundary. */
function limit(text: string, maxTokens: number | undefined): { text: string; finishReason: 'stop' | 'length' } {
  if (maxTokens === undefined || estimateTokens(text) <= maxTokens) return { text, finishReason: 'stop' };
  let kept = '';
  for (const piece of text.match(WORD_PIECES) ?? []) {
    if (estimateTokens(kept + piece) > maxTokens) break;
    kept += piece;
  }
  return { text: kept.trimEnd(), finishReason: 'length' };
}

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

/**
 * Offline extractive answerer, the default chat model when no provider key is configured: it composes a short
 * reply from the sentences of `request.context` that best match the last user message, or says plainly that
 * the knowledge base has no answer. Usage is estimated with `estimateTokens`.
 */
export class LocalChatModel implements ChatModel {
  readonly id = 'local-extractive';

  supports(model: string): boolean {
    return model.startsWith(LOCAL_MODEL_PREFIX);
  }

  async complete(request: ChatRequest): Promise<ChatCompletion> {
    const prompt = promptTokens(request);
    if (request.signal?.aborted) return { text: '', usage: usage(prompt, ''), finishReason: 'aborted' };
    const answer = this.answer(request);
    return { text: answer.text, usage: usage(prompt, answer.text), finishReason: answer.finishReason };
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    const prompt = promptTokens(request);
    const answer = this.answer(request);
    let produced = '';
    for (const piece of answer.text.match(WORD_PIECES) ?? []) {
      if (request.signal?.aborted) {
        yield { type: 'done', completion: { text: produced, usage: usage(prompt, produced), finishReason: 'aborted' } };
        return;
      }
      yield { type: 'token', token: piece };
      produced += piece;
      await nextTurn();
    }
    yield { type: 'done', completion: { text: produced, usage: usage(prompt, produced), finishReason: answer.finishReason } };
  }

  private answer(request: ChatRequest): { text: string; finishReason: 'stop' | 'length' } {
    if (!this.supports(request.model)) {
      throw new DomainError('VALIDATION', `Model ${request.model} is not served by the local provider`);
    }
    return limit(extractiveAnswer(request.messages, request.context).text, request.maxTokens);
  }
}
