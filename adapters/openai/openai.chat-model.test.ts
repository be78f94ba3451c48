import OpenAI from 'openai';

import type { ChatRequest, ChatStreamPart } from '../../core/ports/chat-model';
import { estimateTokens } from '../../core/shared/token-estimate';
import { chatModelConformance } from '../../test/conformance/chat-model.conformance';
import { sseFrame } from '../../test/fakes/fake-http-server';
import { chatStreamFrames, FakeOpenAi, openAiErrorBody } from '../../test/fakes/fake-openai';
import { OpenAiChatModel } from './openai.chat-model';

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

chatModelConformance(
  'OpenAI (fake API)',
  () => ({
    model: official(),
    modelId: 'openai/gpt-4o-mini',
    foreignModelIds: ['cohere/command-r', 'local/extractive', 'meta-llama/llama-3.1-8b'],
    failures: {
      quota: () =>
        fake.replyOnce({
          status: 429,
          json: openAiErrorBody('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota'),
        }),
      serverError: () => fake.replyOnce({ status: 500, json: openAiErrorBody('The server had an error', 'server_error') }),
      stall: (tokens) =>
        fake.replyOnce({ sse: chatStreamFrames('one two three four five', { model: 'gpt-4o-mini' }).slice(0, 1 + tokens), holdOpen: true }),
    },
    toolCall: (call) => fake.toolTurns.push([call]),
  }),
  { remote: true },
);

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
const doneOf = (parts: ChatStreamPart[]) => {
  const last = parts[parts.length - 1];
  if (last?.type !== 'done') throw new Error('stream did not end with done');
  return last.completion;
};

describe('OpenAiChatModel specifics', () => {
  it('serves openai/ ids on the official API; a compatible endpoint serves the ids it is given', () => {
    expect(compatible().supports('meta-llama/llama-3.1-8b')).toBe(true);
    expect(compatible().supports('local/extractive')).toBe(false);
    expect(compatible(['qwen/qwen-2.5']).supports('meta-llama/llama-3.1-8b')).toBe(false);
    expect(compatible(['qwen/qwen-2.5']).supports('qwen/qwen-2.5')).toBe(true);
  });

  it('strips the openai/ prefix and passes limits as the official API names them', async () => {
    const completion = await official().complete(request({ maxTokens: 50, temperature: 0.2 }));
    expect(fake.last().path).toBe('/v1/chat/completions');
    expect(fake.last().json).toEqual({ model: 'gpt-4o-mini', messages: request().messages, max_completion_tokens: 50, temperature: 0.2 });
    expect(completion.usage).toEqual({ promptTokens: 9, completionTokens: 4, totalTokens: 13 });
  });

  it('sends other ids as they are, with max_tokens, to a compatible endpoint', async () => {
    await compatible().complete(request({ model: 'meta-llama/llama-3.1-8b', maxTokens: 20 }));
    expect(fake.last().json).toMatchObject({ model: 'meta-llama/llama-3.1-8b', max_tokens: 20 });
    expect(fake.last().json.max_completion_tokens).toBeUndefined();
  });

  it('asks for the usage chunk when streaming, and estimates usage when a compatible server sends none', async () => {
    await collect(official().stream(request()));
    expect(fake.last().json).toMatchObject({ model: 'gpt-4o-mini', stream: true, stream_options: { include_usage: true } });
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

  it('maps an error sent inside the stream, after the tokens already streamed', async () => {
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
    ).rejects.toMatchObject({ code: 'PROVIDER_LIMIT_REACHED' });
    expect(parts).toEqual([{ type: 'token', token: 'partial ' }]);
  });
});

describe('tools', () => {
  const tool = { name: 'lookup_order', parameters: { type: 'object', properties: {} } };

  it('sends tools and tool_choice, and messages carrying calls and results, in OpenAI shape', async () => {
    await official().complete(
      request({
        messages: [
          { role: 'user', content: 'Where is A-17?' },
          { role: 'assistant', content: '', toolCalls: [{ id: 'c1', name: 'lookup_order', arguments: '{}' }] },
          { role: 'tool', content: '{"status":"shipped"}', toolCallId: 'c1' },
        ],
        tools: [tool],
        toolChoice: { name: 'lookup_order' },
      }),
    );
    const body = fake.last().json;
    expect(body.tools).toEqual([{ type: 'function', function: tool }]);
    expect(body.tool_choice).toEqual({ type: 'function', function: { name: 'lookup_order' } });
    expect(body.messages.slice(1)).toEqual([
      {
        role: 'assistant',
        content: null,
        tool_calls: [{ id: 'c1', type: 'function', function: { name: 'lookup_order', arguments: '{}' } }],
      },
      { role: 'tool', content: '{"status":"shipped"}', tool_call_id: 'c1' },
    ]);
  });

  it('an endpoint configured without tools says so and sends none', async () => {
    const model = new OpenAiChatModel({ apiKey: 'k', baseURL: fake.baseURL, maxRetries: 0, tools: false });
    expect(model.supportsTools('meta-llama/llama-3.1-8b')).toBe(false);
    await model.complete(request({ model: 'meta-llama/llama-3.1-8b', tools: [tool], toolChoice: 'auto' }));
    expect(fake.last().json).not.toHaveProperty('tools');
    expect(fake.last().json).not.toHaveProperty('tool_choice');
  });
});
