import type { Cohere, CohereClientV2 } from 'cohere-ai';

import type { ChatCompletion, ChatModel, ChatRequest, ChatStreamPart, TokenUsage } from '../../core/ports/chat-model';
import { estimateTokens } from '../../core/shared/token-estimate';
import { COHERE_PROVIDER, cohereClient, type CohereConnectionOptions, cohereModelName, cohereOptionsSchema } from './cohere-connection';
import { mapCohereError } from './cohere-errors';

export type CohereChatModelOptions = CohereConnectionOptions;
export const cohereChatModelOptionsSchema = cohereOptionsSchema({});

type Finish = 'stop' | 'length';

/** Chat (plain and streamed) through Cohere's `POST /v2/chat`; serves the `cohere/...` model ids. */
export class CohereChatModel implements ChatModel {
  readonly id = 'cohere';
  private readonly client: CohereClientV2;

  constructor(options: CohereChatModelOptions) {
    this.client = cohereClient(options);
  }

  supports(model: string): boolean {
    return model.startsWith(`${COHERE_PROVIDER}/`);
  }

  async complete(request: ChatRequest): Promise<ChatCompletion> {
    try {
      const response = await this.client.chat(this.params(request), { abortSignal: request.signal });
      const text = (response.message?.content ?? []).map((c) => (c.type === 'text' ? c.text : '')).join('');
      if (response.finishReason === 'ERROR') throw Object.assign(new Error('Cohere finished with ERROR'), { body: response });
      return { text, usage: usageOf(response.usage, request, text), finishReason: finishOf(response.finishReason) };
    } catch (error) {
      if (request.signal?.aborted) return { text: '', usage: usageOf(undefined, request, ''), finishReason: 'aborted' };
      throw mapCohereError(error);
    }
  }

  async *stream(request: ChatRequest): AsyncIterable<ChatStreamPart> {
    let text = '';
    let usage: Cohere.Usage | undefined;
    let finish: Finish | undefined;
    try {
      const stream = await this.client.chatStream(this.params(request), { abortSignal: request.signal });
      for await (const event of stream) {
        if (event.type === 'content-delta') {
          const token = event.delta?.message?.content?.text;
          if (token) {
            text += token;
            yield { type: 'token', token };
          }
        } else if (event.type === 'message-end') {
          if (event.delta?.error || event.delta?.finishReason === 'ERROR') {
            throw Object.assign(new Error(event.delta?.error ?? 'Cohere stream finished with ERROR'), {
              body: { message: event.delta?.error },
            });
          }
          usage = event.delta?.usage;
          finish = finishOf(event.delta?.finishReason);
        }
      }
    } catch (error) {
      if (!request.signal?.aborted) throw mapCohereError(error);
    }
    if (request.signal?.aborted && !finish) {
      // message-end (with usage) never came: count what was produced
      yield { type: 'done', completion: { text, usage: usageOf(undefined, request, text), finishReason: 'aborted' } };
      return;
    }
    yield { type: 'done', completion: { text, usage: usageOf(usage, request, text), finishReason: finish ?? 'stop' } };
  }

  private params(request: ChatRequest): Cohere.V2ChatRequest {
    return {
      model: cohereModelName(request.model),
      // No tool support here (no supportsTools), so tool messages never arrive; mapped defensively.
      messages: request.messages.map((m) => ({ role: m.role === 'tool' ? 'user' : m.role, content: m.content })),
      ...(request.maxTokens !== undefined ? { maxTokens: request.maxTokens } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
    };
  }
}

function finishOf(reason: string | undefined): Finish {
  return reason === 'MAX_TOKENS' ? 'length' : 'stop';
}

/** Billed units (what Cohere charges), else the raw token counts, else an estimate. */
function usageOf(usage: Cohere.Usage | undefined, request: ChatRequest, text: string): TokenUsage {
  const input = usage?.billedUnits?.inputTokens ?? usage?.tokens?.inputTokens;
  const output = usage?.billedUnits?.outputTokens ?? usage?.tokens?.outputTokens;
  const promptTokens = input ?? request.messages.reduce((sum, m) => sum + estimateTokens(m.content), 0);
  const completionTokens = output ?? estimateTokens(text);
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens };
}
