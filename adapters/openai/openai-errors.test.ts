import { createServer } from 'node:net';

import OpenAI from 'openai';

import { FakeOpenAi, openAiErrorBody } from '../../test/fakes/fake-openai';
import { OpenAiChatModel } from './openai.chat-model';
import { OpenAiEmbedder } from './openai.embedder';
import { mapOpenAiError, PROVIDER_LIMIT_MESSAGE } from './openai-errors';

const chatRequest = { model: 'openai/gpt-4o-mini', messages: [{ role: 'user' as const, content: 'hi' }] };

async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

describe('OpenAI error mapping', () => {
  const fake = new FakeOpenAi();
  beforeAll(() => fake.start());
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());
  const client = () => new OpenAI({ apiKey: 'sk-test', baseURL: fake.baseURL, maxRetries: 0 });
  const chat = () => new OpenAiChatModel({ apiKey: 'sk-test', client: client() });
  const embedder = () => new OpenAiEmbedder({ apiKey: 'sk-test', client: client() });

  it.each([
    [
      '429 insufficient_quota',
      429,
      openAiErrorBody(
        'You exceeded your current quota, please check your plan and billing details.',
        'insufficient_quota',
        'insufficient_quota',
      ),
      'credit',
    ],
    ['402 payment required (compatible gateways)', 402, { error: { message: 'Insufficient credits', code: 402 } }, 'credit'],
    [
      '400 context_length_exceeded',
      400,
      openAiErrorBody("This model's maximum context length is 128000 tokens.", 'invalid_request_error', 'context_length_exceeded'),
      'tokens',
    ],
    [
      '400 context length in the message only',
      400,
      { error: { message: 'Please reduce the length of the messages or completion.', type: 'invalid_request_error' } },
      'tokens',
    ],
    [
      '413 request too large',
      413,
      openAiErrorBody('Request too large for model: tokens per minute limit', 'tokens', 'rate_limit_exceeded'),
      'tokens',
    ],
  ])('%s -> PROVIDER_LIMIT_REACHED with the user-facing message', async (_name, status, body, reason) => {
    fake.replyOnce({ status, json: body });
    const error = await chat()
      .complete(chatRequest)
      .catch((e: unknown) => e);
    expect(error).toMatchObject({
      name: 'DomainError',
      code: 'PROVIDER_LIMIT_REACHED',
      message: PROVIDER_LIMIT_MESSAGE,
      details: { provider: 'openai', status, reason },
    });
    expect(PROVIDER_LIMIT_MESSAGE).toBe('The assistant is temporarily unavailable. Please try again later.');
  });

  it('other 429 -> RATE_LIMITED with Retry-After', async () => {
    fake.replyOnce({
      status: 429,
      headers: { 'retry-after': '7' },
      json: openAiErrorBody('Rate limit reached for requests', 'requests', 'rate_limit_exceeded'),
    });
    await expect(embedder().embed(['x'], { dimensions: 4, purpose: 'query' })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { provider: 'openai', status: 429, retryAfterSeconds: 7 },
    });
  });

  it.each([
    ['500', { status: 500, json: openAiErrorBody('The server had an error while processing your request.', 'server_error') }],
    ['401', { status: 401, json: openAiErrorBody('Incorrect API key provided', 'invalid_request_error', 'invalid_api_key') }],
    ['bad JSON', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"object": "list", "data": [' }],
    ['dropped connection', { destroy: true }],
  ])('%s -> UPSTREAM_FAILED', async (_name, reply) => {
    fake.replyOnce(reply);
    const error = await embedder()
      .embed(['x'], { dimensions: 4, purpose: 'query' })
      .catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UPSTREAM_FAILED', details: { provider: 'openai' } });
    expect((error as Error).cause).toBeDefined();
  });

  it('network failure -> UPSTREAM_FAILED', async () => {
    const port = await closedPort();
    const unreachable = new OpenAiChatModel({ apiKey: 'k', baseURL: `http://127.0.0.1:${port}/v1`, maxRetries: 0 });
    await expect(unreachable.complete({ ...chatRequest, model: 'x/y' })).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
  });

  it('a 429 quota error on a stream start is a provider limit too', async () => {
    fake.replyOnce({ status: 429, json: openAiErrorBody('You exceeded your current quota', 'insufficient_quota', 'insufficient_quota') });
    const iterate = async () => {
      for await (const part of chat().stream(chatRequest)) void part;
    };
    await expect(iterate()).rejects.toMatchObject({ code: 'PROVIDER_LIMIT_REACHED' });
  });

  it('labels errors with the configured provider and passes domain errors through', () => {
    expect(mapOpenAiError(new Error('boom'), 'groq')).toMatchObject({ code: 'UPSTREAM_FAILED', details: { provider: 'groq' } });
    const limit = mapOpenAiError({ status: 402 });
    expect(mapOpenAiError(limit)).toBe(limit);
  });
});
