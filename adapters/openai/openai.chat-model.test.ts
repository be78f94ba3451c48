import OpenAI from 'openai';

import type { ChatRequest, ChatStreamPart } from '../../core/ports/chat-model';
import { estimateTokens } from '../../core/shared/token-estimate';
import { sseFrame } from '../../test/fakes/fake-http-server';
import { chatStreamFrames, FakeOpenAi, openAiErrorBody } from '../../test/fakes/fake-openai';
import { OpenAiChatModel } from './openai.chat-model';

const request = (extra: Partial<ChatRequest> = {}): ChatRequest => ({
  model: 'openai/gpt-4o-mini',
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
async function waitFor(condition: () => boolean) {
  while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}
const tokensOf = (parts: ChatStreamPart[]) => parts.flatMap((p) => (p.type === 'token' ? [p.token] : []));
const doneOf = (parts: ChatStreamPart[]) => {
  const last = parts[parts.length - 1];
  if (last?.type !== 'done') throw new Error('stream did not end with done');
  return last.completion;
};

describe('OpenAiChatModel against a fake OpenAI API', () => {
  const fake = new FakeOpenAi();
  beforeAll(() => fake.start());
  afterAll(() => fake.close());
  beforeEach(() => {
    fake.reset();
    fake.reply = 'Refunds take fourteen days.';
  });

  const official = () =>
    new OpenAiChatModel({ apiKey: 'sk-test', client: new OpenAI({ apiKey: 'sk-test', baseURL: fake.baseURL, maxRetries: 0 }) });
  const compatible = (models?: string[]) => new OpenAiChatModel({ apiKey: 'k', baseURL: fake.baseURL, maxRetries: 0, models });

  it('serves openai/ ids on the official API; a compatible endpoint serves the ids it is given', () => {
    expect(official().supports('openai/gpt-4o-mini')).toBe(true);
    expect(official().supports('meta-llama/llama-3.1-8b')).toBe(false);
    expect(official().supports('local/extractive')).toBe(false);
    expect(compatible().supports('meta-llama/llama-3.1-8b')).toBe(true);
    expect(compatible().supports('local/extractive')).toBe(false);
    expect(compatible(['qwen/qwen-2.5']).supports('meta-llama/llama-3.1-8b')).toBe(false);
    expect(compatible(['qwen/qwen-2.5']).supports('qwen/qwen-2.5')).toBe(true);
  });

  it('completes: strips the openai/ prefix, passes limits, returns text, usage and finish reason', async () => {
    const completion = await official().complete(request({ maxTokens: 50, temperature: 0.2 }));
    expect(fake.last().path).toBe('/v1/chat/completions');
    expect(fake.last().json).toEqual({
      model: 'gpt-4o-mini',
      messages: request().messages,
      max_completion_tokens: 50,
      temperature: 0.2,
    });
    expect(completion).toEqual({
      text: 'Refunds take fourteen days.',
      usage: { promptTokens: 9, completionTokens: 4, totalTokens: 13 },
      finishReason: 'stop',
    });
  });

  it('sends other ids as they are, with max_tokens, to a compatible endpoint', async () => {
    await compatible().complete(request({ model: 'meta-llama/llama-3.1-8b', maxTokens: 20 }));
    expect(fake.last().json).toMatchObject({ model: 'meta-llama/llama-3.1-8b', max_tokens: 20 });
    expect(fake.last().json.max_completion_tokens).toBeUndefined();
  });

  it('streams tokens with stream_options.include_usage and ends with the provider usage', async () => {
    const parts = await collect(official().stream(request()));
    expect(fake.last().json).toMatchObject({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true } });
    expect(tokensOf(parts)).toEqual(['Refunds ', 'take ', 'fourteen ', 'days.']);
    expect(doneOf(parts)).toEqual({
      text: 'Refunds take fourteen days.',
      usage: { promptTokens: 9, completionTokens: 4, totalTokens: 13 },
      finishReason: 'stop',
    });
    expect(parts.filter((p) => p.type === 'done')).toHaveLength(1);
  });

  it('estimates usage when a compatible server sends no usage chunk, and reports length', async () => {
    fake.replyOnce({ sse: chatStreamFrames('Cut short', { model: 'm' }, { usage: false, finishReason: 'length' }) });
    const completion = doneOf(await collect(compatible().stream(request({ model: 'm/x' }))));
    expect(completion.finishReason).toBe('length');
    const prompt = estimateTokens('Answer from the context.') + estimateTokens('How long do refunds take?');
    expect(completion.usage).toEqual({
      promptTokens: prompt,
      completionTokens: estimateTokens('Cut short'),
      totalTokens: prompt + estimateTokens('Cut short'),
    });
  });

  it('stops when the signal aborts mid-stream and counts only what was produced', async () => {
    const frames = chatStreamFrames('one two three four five', { model: 'gpt-4o-mini' }, { usage: true });
    fake.replyOnce({ sse: frames.slice(0, 3), holdOpen: true }); // role chunk, "one ", "two ", then silence
    const controller = new AbortController();
    const parts: ChatStreamPart[] = [];
    for await (const part of official().stream(request({ signal: controller.signal }))) {
      parts.push(part);
      if (part.type === 'token' && part.token === 'two ') controller.abort();
    }
    const completion = doneOf(parts);
    expect(tokensOf(parts)).toEqual(['one ', 'two ']);
    expect(completion.finishReason).toBe('aborted');
    expect(completion.text).toBe('one two ');
    expect(completion.usage.completionTokens).toBe(estimateTokens('one two '));
  });

  it('returns an aborted completion when complete() is aborted', async () => {
    fake.replyOnce({ sse: [], holdOpen: true });
    const controller = new AbortController();
    const pending = official().complete(request({ signal: controller.signal }));
    await waitFor(() => fake.requests.length === 1);
    controller.abort();
    await expect(pending).resolves.toMatchObject({ text: '', finishReason: 'aborted', usage: { completionTokens: 0 } });
  });

  it('maps an error sent inside the stream', async () => {
    const frames = chatStreamFrames('partial answer', { model: 'gpt-4o-mini' });
    fake.replyOnce({
      sse: [
        ...frames.slice(0, 2),
        sseFrame(openAiErrorBody('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota')),
      ],
    });
    const parts: ChatStreamPart[] = [];
    await expect(
      (async () => {
        for await (const part of official().stream(request())) parts.push(part);
      })(),
    ).rejects.toMatchObject({
      code: 'PROVIDER_LIMIT_REACHED',
      message: 'The assistant is temporarily unavailable. Please try again later.',
    });
    expect(tokensOf(parts)).toEqual(['partial ']);
  });

  it('maps an HTTP error before the stream starts', async () => {
    fake.replyOnce({ status: 500, json: openAiErrorBody('The server had an error', 'server_error') });
    await expect(collect(official().stream(request()))).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
  });
});
