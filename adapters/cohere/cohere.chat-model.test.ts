import type { ChatRequest, ChatStreamPart } from '../../core/ports/chat-model';
import { chatModelConformance } from '../../test/conformance/chat-model.conformance';
import { chatStreamFrames, cohereErrorBody, FakeCohere } from '../../test/fakes/fake-cohere';
import { CohereChatModel, cohereChatModelOptionsSchema } from './cohere.chat-model';

const fake = new FakeCohere();
let url = '';
beforeAll(async () => {
  url = await fake.start();
});
afterAll(() => fake.close());
beforeEach(() => {
  fake.reset();
  fake.reply = 'Refunds take fourteen days.';
});
const model = () => new CohereChatModel({ apiKey: 'co-test', baseURL: url, maxRetries: 0 });

chatModelConformance(
  'Cohere (fake API)',
  () => ({
    model: model(),
    modelId: 'cohere/command-r-plus',
    foreignModelIds: ['openai/gpt-4o', 'local/extractive'],
    failures: {
      quota: () => fake.replyOnce({ status: 402, json: cohereErrorBody('Please add a payment method to continue.') }),
      serverError: () => fake.replyOnce({ status: 500, json: cohereErrorBody('internal server error') }),
      // message-start and content-start come before the tokens
      stall: (tokens) =>
        fake.replyOnce({ sse: chatStreamFrames('one two three four', { messages: [] }).slice(0, 2 + tokens), holdOpen: true }),
    },
  }),
  { remote: true },
);

const request = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'cohere/command-r-plus',
  messages: [
    { role: 'system', content: 'Answer from the context.' },
    { role: 'user', content: 'How long do refunds take?' },
  ],
  ...extra,
});
async function collect(stream: AsyncIterable<ChatStreamPart>) {
  const parts: ChatStreamPart[] = [];
  for await (const part of stream) parts.push(part);
  return parts;
}

describe('CohereChatModel specifics', () => {
  it('declares its options schema', () => {
    expect(cohereChatModelOptionsSchema.required).toEqual(['apiKey']);
  });

  it('sends the bare model name and limits, and bills the billed units', async () => {
    const completion = await model().complete(request({ maxTokens: 100, temperature: 0.3 }));
    expect(fake.last().path).toBe('/v2/chat');
    expect(fake.last().json).toEqual({
      model: 'command-r-plus',
      messages: request().messages,
      max_tokens: 100,
      temperature: 0.3,
      stream: false,
    });
    expect(completion.usage).toEqual({ promptTokens: 9, completionTokens: 4, totalTokens: 13 });
  });

  it('reports MAX_TOKENS as length, and an error in message-end as upstream_failed', async () => {
    fake.replyOnce({ sse: chatStreamFrames('Cut', { messages: [] }, { finishReason: 'MAX_TOKENS' }) });
    const parts = await collect(model().stream(request()));
    expect(parts[parts.length - 1]).toMatchObject({ type: 'done', completion: { finishReason: 'length' } });
    fake.replyOnce({ sse: chatStreamFrames('partial', { messages: [] }, { finishReason: 'ERROR', error: 'internal error' }) });
    await expect(collect(model().stream(request()))).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
  });
});
