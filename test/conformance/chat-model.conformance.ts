import type { ChatModel, ChatRequest, ChatStreamPart } from '../../core/ports/chat-model';
import { PROVIDER_LIMIT_MESSAGE } from '../../core/shared/errors';
import { estimateTokens } from '../../core/shared/token-estimate';

/** Upstream failures a remote provider's fake can script for the next call. */
export interface ChatFailures {
  /** The provider's credit or quota error. */
  quota(): void;
  /** A 5xx before anything is streamed. */
  serverError(): void;
  /** The next stream sends `tokens` tokens and then nothing, holding the connection open. */
  stall(tokens: number): void;
}

export interface ChatModelHarness {
  model: ChatModel;
  /** A model id this adapter serves, and ids of other providers it must not claim. */
  modelId: string;
  foreignModelIds: string[];
  /** Extra request fields the adapter needs to produce an answer (the local provider answers from context). */
  request?: Partial<ChatRequest>;
  failures?: ChatFailures;
  /** Scripts the next completion to call `call` (adapters whose `supportsTools` says true). */
  toolCall?(call: { id: string; name: string; arguments: Record<string, unknown> }): void;
}

const LOOKUP = {
  name: 'lookup_order',
  description: 'Finds an order',
  parameters: { type: 'object', properties: { id: { type: 'string' } } },
};

async function collect(stream: AsyncIterable<ChatStreamPart>) {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}
const tokensOf = (parts: ChatStreamPart[]) => parts.flatMap((p) => (p.type === 'token' ? [p.token] : []));
const doneOf = (parts: ChatStreamPart[]) => {
  const last = parts[parts.length - 1];
  if (last?.type !== 'done') throw new Error('stream did not end with done');
  return last.completion;
};

/** Shared behaviour of every ChatModel adapter (LangChain-style standard tests), run against local fakes. */
export function chatModelConformance(name: string, makeHarness: () => ChatModelHarness, options: { remote: boolean }): void {
  describe(`ChatModel conformance: ${name}`, () => {
    let h: ChatModelHarness;
    beforeEach(() => {
      h = makeHarness();
    });
    const request = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
      model: h.modelId,
      messages: [
        { role: 'system', content: 'Answer from the context.' },
        { role: 'user', content: 'How long do refunds take?' },
      ],
      ...h.request,
      ...extra,
    });

    it('describes itself and serves its own model ids only', () => {
      expect(h.model.id.length).toBeGreaterThan(0);
      expect(h.model.supports(h.modelId)).toBe(true);
      for (const other of h.foreignModelIds) expect({ other, supported: h.model.supports(other) }).toEqual({ other, supported: false });
    });

    it('completes with text, stop and consistent usage', async () => {
      const completion = await h.model.complete(request());
      expect(completion.text.trim().length).toBeGreaterThan(0);
      expect(completion.finishReason).toBe('stop');
      const { promptTokens, completionTokens, totalTokens } = completion.usage;
      expect(promptTokens).toBeGreaterThan(0);
      expect(completionTokens).toBeGreaterThan(0);
      expect(totalTokens).toBe(promptTokens + completionTokens);
    });

    it('streams tokens that add up to the text of exactly one final done', async () => {
      const parts = await collect(h.model.stream(request()));
      const tokens = tokensOf(parts);
      expect(tokens.length).toBeGreaterThan(1);
      expect(parts.filter((p) => p.type === 'done')).toHaveLength(1);
      const done = doneOf(parts);
      expect(tokens.join('')).toBe(done.text);
      expect(done.finishReason).toBe('stop');
      expect(done.usage.totalTokens).toBe(done.usage.promptTokens + done.usage.completionTokens);
    });

    it('answers an already aborted request with an empty aborted completion', async () => {
      const completion = await h.model.complete(request({ signal: AbortSignal.abort() }));
      expect(completion).toMatchObject({ text: '', finishReason: 'aborted', usage: { completionTokens: 0 } });
    });

    it('stops streaming when the signal aborts and bills only what was produced', async () => {
      h.failures?.stall(3);
      const controller = new AbortController();
      const parts: ChatStreamPart[] = [];
      for await (const part of h.model.stream(request({ signal: controller.signal }))) {
        parts.push(part);
        if (tokensOf(parts).length === 2 && part.type === 'token') controller.abort();
      }
      const done = doneOf(parts);
      const produced = tokensOf(parts).join('');
      expect(tokensOf(parts)).toHaveLength(2);
      expect(done).toMatchObject({ finishReason: 'aborted', text: produced });
      expect(done.usage.completionTokens).toBe(estimateTokens(produced));
    });

    // A remote provider's failures, scripted on its fake; the local provider has none.
    if (!options.remote) return;
    const failures = () => {
      if (!h.failures) throw new Error(`${name} is remote but its harness scripts no failures`);
      return h.failures;
    };

    it('maps a quota or credit error to provider_limit_reached with the spec message', async () => {
      failures().quota();
      await expect(collect(h.model.stream(request()))).rejects.toMatchObject({
        code: 'PROVIDER_LIMIT_REACHED',
        message: PROVIDER_LIMIT_MESSAGE,
      });
    });

    it('maps a server error to upstream_failed', async () => {
      failures().serverError();
      await expect(h.model.complete(request())).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
    });

    it('without tool support, ignores offered tools and answers in text', async () => {
      if (h.model.supportsTools?.(h.modelId)) return;
      const completion = await h.model.complete(request({ tools: [LOOKUP], toolChoice: 'auto' }));
      expect(completion.finishReason).toBe('stop');
      expect(completion.text.length).toBeGreaterThan(0);
      expect(completion.toolCalls).toBeUndefined();
    });

    it('with tool support, returns the tool calls (plain and streamed) with finish reason tool_calls', async () => {
      if (!h.model.supportsTools?.(h.modelId)) return;
      if (!h.toolCall) throw new Error('a harness of an adapter that supports tools must script tool calls');
      const expected = [{ id: 'call_c1', name: 'lookup_order', arguments: '{"id":"A-17"}' }];
      h.toolCall({ id: 'call_c1', name: 'lookup_order', arguments: { id: 'A-17' } });
      const plain = await h.model.complete(request({ tools: [LOOKUP] }));
      expect(plain).toMatchObject({ finishReason: 'tool_calls', toolCalls: expected });
      h.toolCall({ id: 'call_c1', name: 'lookup_order', arguments: { id: 'A-17' } });
      const streamed = doneOf(await collect(h.model.stream(request({ tools: [LOOKUP] }))));
      expect(streamed).toMatchObject({ finishReason: 'tool_calls', toolCalls: expected });
    });
  });
}
