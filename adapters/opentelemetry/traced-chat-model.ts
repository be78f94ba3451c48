import { context, type Span, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';

import type { ChatCompletion, ChatModel, ChatRequest, ChatStreamPart } from '../../core/ports/chat-model';

/** A `model.call` span around each completion or stream of the wrapped model (with the token usage). */
export function tracedChatModel(inner: ChatModel): ChatModel {
  const tracer = trace.getTracer('agent-platform');
  const start = (request: ChatRequest, streaming: boolean) =>
    tracer.startSpan(
      'model.call',
      {
        kind: SpanKind.CLIENT,
        attributes: { 'gen_ai.request.model': request.model, 'gen_ai.provider.name': providerOf(request.model), streaming },
      },
      context.active(),
    );
  const traced: Pick<ChatModel, 'complete' | 'stream'> = {
    async complete(request) {
      const span = start(request, false);
      try {
        const completion = await context.with(trace.setSpan(context.active(), span), () => inner.complete(request));
        usage(span, completion);
        return completion;
      } catch (error) {
        failed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
    async *stream(request): AsyncIterable<ChatStreamPart> {
      const span = start(request, true);
      try {
        for await (const part of inner.stream(request)) {
          if (part.type === 'done') usage(span, part.completion);
          yield part;
        }
      } catch (error) {
        failed(span, error);
        throw error;
      } finally {
        span.end();
      }
    },
  };
  // Everything else (id, supports, members the port may gain) is the wrapped model's own.
  return new Proxy(inner, {
    get(target, property) {
      if (property === 'complete' || property === 'stream') return traced[property];
      const value: unknown = Reflect.get(target, property, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}

function usage(span: Span, completion: ChatCompletion): void {
  span.setAttributes({
    'gen_ai.usage.input_tokens': completion.usage.promptTokens,
    'gen_ai.usage.output_tokens': completion.usage.completionTokens,
    'gen_ai.response.finish_reason': completion.finishReason,
  });
}

function failed(span: Span, error: unknown): void {
  span.setStatus({ code: SpanStatusCode.ERROR, message: error instanceof Error ? error.message : String(error) });
}

function providerOf(model: string): string {
  const slash = model.indexOf('/');
  return slash > 0 ? model.slice(0, slash) : 'unknown';
}
