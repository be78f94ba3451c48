import { randomUUID } from 'node:crypto';

import type { openAiCompatOperations } from '../../../contracts/operations/openai-compat';
import type { ChatDeps } from '../../../core/chat/chat-deps';
import { type ChatResult, runChat } from '../../../core/chat/chat-pipeline';
import { type CompatRequest, listCompatModels, prepareCompatChat } from '../../../core/chat/openai-compat';
import { compatToolCalls } from '../../../core/chat/openai-compat-tools';
import { toOpenAiError } from '../../../core/shared/openai-error';
import { toHttpError } from '../error-mapper';
import { type HandlerMap, requireApiKey, typedHandlers } from '../handler';
import { abortOnDisconnect } from '../sse';
import { type ChatStreamFormat, streamChat } from './chat.routes';

const finishReason = (r: ChatResult) => (r.toolCalls?.length ? 'tool_calls' : r.finishReason === 'length' ? 'length' : 'stop');
const usageOf = (r: ChatResult) => ({
  prompt_tokens: r.usage.promptTokens,
  completion_tokens: r.usage.completionTokens,
  total_tokens: r.usage.totalTokens,
  cost: r.usage.cost,
});

/** OpenAI `chat.completion.chunk` frames, ending with `data: [DONE]`. */
function chunkFormat(id: string, model: string, created: number, includeUsage: boolean, wholeAnswer: boolean): ChatStreamFormat {
  const chunk = (delta: Record<string, unknown>, finish: string | null, extra: Record<string, unknown> = {}) => ({
    id,
    object: 'chat.completion.chunk',
    created,
    model,
    choices: [{ index: 0, delta, logprobs: null, finish_reason: finish }],
    ...extra,
  });
  return {
    start: () => [chunk({ role: 'assistant', content: '' }, null)],
    token: (token) => chunk({ content: token }, null),
    done: (r) => [
      // An agent without streamingEnabled answers in one piece.
      ...(wholeAnswer && r.response ? [chunk({ content: r.response }, null)] : []),
      // Tool calls arrive whole from the pipeline: one delta per call, as OpenAI's first delta of each.
      ...(r.toolCalls?.length ? [chunk({ tool_calls: compatToolCalls(r.toolCalls).map((c, index) => ({ index, ...c })) }, null)] : []),
      chunk({}, finishReason(r), { sources: r.sources, conversation_id: r.conversationId }),
      ...(includeUsage ? [{ id, object: 'chat.completion.chunk', created, model, choices: [], usage: usageOf(r) }] : []),
    ],
    error: (e) => {
      const { status, body } = toHttpError(e);
      return toOpenAiError(status, body);
    },
    trailer: 'data: [DONE]\n\n',
  };
}

export function openAiCompatRoutes(d: ChatDeps): HandlerMap {
  return typedHandlers<typeof openAiCompatOperations>()({
    openAiChatCompletions: async (ctx) => {
      const body = ctx.body as CompatRequest & { stream_options?: { include_usage?: boolean } };
      const prepared = await prepareCompatChat(d, requireApiKey(ctx), body);
      const id = `chatcmpl-${randomUUID().replace(/-/g, '')}`;
      const created = Math.floor(Date.now() / 1000);
      if (body.stream) {
        const wholeAnswer = !prepared.turn.agent.streamingEnabled;
        const format = chunkFormat(id, body.model, created, body.stream_options?.include_usage === true, wholeAnswer);
        if (wholeAnswer) {
          // Same frames, produced after the answer is complete.
          const result = await runChat(d, prepared, { signal: abortOnDisconnect(ctx.req, ctx.res) });
          return streamChat(d, prepared, ctx.req, ctx.res, format, result);
        }
        return streamChat(d, prepared, ctx.req, ctx.res, format);
      }
      const r = await runChat(d, prepared, { signal: abortOnDisconnect(ctx.req, ctx.res) });
      return {
        status: 200,
        body: {
          id,
          object: 'chat.completion',
          created,
          model: body.model,
          choices: [
            {
              index: 0,
              message: r.toolCalls?.length
                ? { role: 'assistant', content: r.response || null, refusal: null, tool_calls: compatToolCalls(r.toolCalls) }
                : { role: 'assistant', content: r.response, refusal: null },
              logprobs: null,
              finish_reason: finishReason(r),
            },
          ],
          usage: usageOf(r),
          sources: r.sources,
          conversation_id: r.conversationId,
        },
      };
    },
    openAiListModels: async (ctx) => ({ status: 200, body: await listCompatModels(d, requireApiKey(ctx)) }),
  });
}
