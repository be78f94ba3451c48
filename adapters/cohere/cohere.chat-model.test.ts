import type { ChatRequest, ChatStreamPart } from '../../core/ports/chat-model';
import { estimateTokens } from '../../core/shared/token-estimate';
import { chatStreamFrames, cohereErrorBody, FakeCohere } from '../../test/fakes/fake-cohere';
import { CohereChatModel, cohereChatModelOptionsSchema } from './cohere.chat-model';

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
const tokensOf = (parts: ChatStreamPart[]) => parts.flatMap((p) => (p.type === 'token' ? [p.token] : []));
const doneOf = (parts: ChatStreamPart[]) => {
  const last = parts[parts.length - 1];
  if (last?.type !== 'done') throw new Error('stream did not end with done');
  return last.completion;
};

describe('CohereChatModel against a fake Cohere API', () => {
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

  it('serves cohere/ model ids', () => {
    expect(model().supports('cohere/command-r-plus')).toBe(true);
    expect(model().supports('openai/gpt-4o')).toBe(false);
    expect(cohereChatModelOptionsSchema.required).toEqual(['apiKey']);
  });

  it('completes with the bare model name, limits, and billed usage', async () => {
    const completion = await model().complete(request({ maxTokens: 100, temperature: 0.3 }));
    expect(fake.last().path).toBe('/v2/chat');
    expect(fake.last().json).toEqual({
      model: 'command-r-plus',
      messages: request().messages,
      max_tokens: 100,
      temperature: 0.3,
      stream: false,
    });
    expect(completion).toEqual({
      text: 'Refunds take fourteen days.',
      usage: { promptTokens: 9, completionTokens: 4, totalTokens: 13 },
      finishReason: 'stop',
    });
  });

  it('streams content deltas and ends with the usage of message-end', async () => {
    const parts = await collect(model().stream(request()));
    expect(fake.last().json).toMatchObject({ model: 'command-r-plus', stream: true });
    expect(tokensOf(parts)).toEqual(['Refunds ', 'take ', 'fourteen ', 'days.']);
    expect(doneOf(parts)).toEqual({
      text: 'Refunds take fourteen days.',
      usage: { promptTokens: 9, completionTokens: 4, totalTokens: 13 },
      finishReason: 'stop',
    });
    expect(parts.filter((p) => p.type === 'done')).toHaveLength(1);
  });

  it('reports MAX_TOKENS as length', async () => {
    fake.replyOnce({ sse: chatStreamFrames('Cut', { messages: [] }, { finishReason: 'MAX_TOKENS' }) });
    expect(doneOf(await collect(model().stream(request()))).finishReason).toBe('length');
  });

  it('stops when the signal aborts mid-stream and counts only what was produced', async () => {
    const frames = chatStreamFrames('one two three four', { messages: [] });
    fake.replyOnce({ sse: frames.slice(0, 4), holdOpen: true }); // start, content-start, "one ", "two ", then silence
    const controller = new AbortController();
    const parts: ChatStreamPart[] = [];
    for await (const part of model().stream(request({ signal: controller.signal }))) {
      parts.push(part);
      if (part.type === 'token' && part.token === 'two ') controller.abort();
    }
    const completion = doneOf(parts);
    expect(tokensOf(parts)).toEqual(['one ', 'two ']);
    expect(completion.finishReason).toBe('aborted');
    expect(completion.text).toBe('one two ');
    expect(completion.usage.completionTokens).toBe(estimateTokens('one two '));
  });

  it('maps an error reported in message-end', async () => {
    fake.replyOnce({ sse: chatStreamFrames('partial', { messages: [] }, { finishReason: 'ERROR', error: 'internal error' }) });
    await expect(collect(model().stream(request()))).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
  });

  it('maps an HTTP error before the stream starts', async () => {
    fake.replyOnce({ status: 402, json: cohereErrorBody('Please add a payment method to continue.') });
    await expect(collect(model().stream(request()))).rejects.toMatchObject({ code: 'PROVIDER_LIMIT_REACHED' });
  });
});
