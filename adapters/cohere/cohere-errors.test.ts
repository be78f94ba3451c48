import { cohereErrorBody, FakeCohere } from '../../test/fakes/fake-cohere';
import { CohereChatModel } from './cohere.chat-model';
import { CohereEmbedder } from './cohere.embedder';
import { CohereReranker } from './cohere.reranker';
import { mapCohereError, PROVIDER_LIMIT_MESSAGE } from './cohere-errors';

const chatRequest = { model: 'cohere/command-r', messages: [{ role: 'user' as const, content: 'hi' }] };

describe('Cohere error mapping', () => {
  const fake = new FakeCohere();
  let url = '';
  beforeAll(async () => {
    url = await fake.start();
  });
  afterAll(() => fake.close());
  beforeEach(() => fake.reset());
  const options = () => ({ apiKey: 'co-test', baseURL: url, maxRetries: 0 });

  it.each([
    ['402 billing limit', 402, 'Please add or update your payment method.', 'credit'],
    [
      '429 trial key monthly cap',
      429,
      'You are using a Trial key, which is limited to 1000 API calls / month. You can continue to use the Trial key for free or upgrade to a Production key with higher rate limits.',
      'credit',
    ],
    ['400 too many tokens', 400, 'too many tokens: total number of tokens in the prompt cannot exceed 4081 - received 4588.', 'tokens'],
  ])('%s -> PROVIDER_LIMIT_REACHED with the user-facing message', async (_name, status, message, reason) => {
    fake.replyOnce({ status, json: cohereErrorBody(message) });
    const error = await new CohereChatModel(options()).complete(chatRequest).catch((e: unknown) => e);
    expect(error).toMatchObject({
      code: 'PROVIDER_LIMIT_REACHED',
      message: PROVIDER_LIMIT_MESSAGE,
      details: { provider: 'cohere', status, reason },
    });
    expect(PROVIDER_LIMIT_MESSAGE).toBe('The assistant is temporarily unavailable. Please try again later.');
  });

  it('other 429 -> RATE_LIMITED with Retry-After', async () => {
    fake.replyOnce({
      status: 429,
      headers: { 'retry-after': '3' },
      json: cohereErrorBody('You are past the per minute request limit, please wait and try again later.'),
    });
    await expect(new CohereEmbedder(options()).embed(['x'], { dimensions: 256, purpose: 'query' })).rejects.toMatchObject({
      code: 'RATE_LIMITED',
      details: { provider: 'cohere', status: 429, retryAfterSeconds: 3 },
    });
  });

  it.each([
    ['500', { status: 500, json: cohereErrorBody('internal server error') }],
    ['503', { status: 503, json: cohereErrorBody('service unavailable') }],
    ['401', { status: 401, json: cohereErrorBody('invalid api token') }],
    ['bad JSON', { status: 200, headers: { 'content-type': 'application/json' }, body: '{"results": [' }],
    ['dropped connection', { destroy: true }],
  ])('%s -> UPSTREAM_FAILED', async (_name, reply) => {
    fake.replyOnce(reply);
    // The SDK leaves its timeout timer running when fetch itself fails (makeRequest clears it only on success);
    // a short timeout lets that timer end with the test instead of holding the worker for a minute.
    const error = await new CohereReranker({ ...options(), timeoutMs: 500 }).rerank('q', ['a', 'b']).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'UPSTREAM_FAILED', details: { provider: 'cohere' } });
    // a body that is not the expected JSON is caught by the adapter's own check, with no SDK error behind it
    if (_name !== 'bad JSON') expect((error as Error).cause).toBeDefined();
  });

  it('passes domain errors through and maps unknown failures', () => {
    const limit = mapCohereError({ statusCode: 402 });
    expect(mapCohereError(limit)).toBe(limit);
    expect(mapCohereError(new Error('socket hang up'))).toMatchObject({ code: 'UPSTREAM_FAILED' });
  });
});
