import OpenAI from 'openai';

import { embedderConformance } from '../../test/conformance/embedder.conformance';
import { FakeOpenAi } from '../../test/fakes/fake-openai';
import { OpenAiEmbedder, openAiEmbedderOptionsSchema } from './openai.embedder';

const fake = new FakeOpenAi();
beforeAll(() => fake.start());
afterAll(() => fake.close());
beforeEach(() => fake.reset());

embedderConformance('OpenAI (fake API)', () => ({
  embedder: new OpenAiEmbedder({ apiKey: 'sk-test', baseURL: fake.baseURL, maxRetries: 0 }),
  dimensions: 8,
}));

describe('OpenAiEmbedder specifics', () => {
  const official = (extra: Partial<ConstructorParameters<typeof OpenAiEmbedder>[0]> = {}) =>
    new OpenAiEmbedder({ apiKey: 'sk-test', client: new OpenAI({ apiKey: 'sk-test', baseURL: fake.baseURL, maxRetries: 0 }), ...extra });

  it('names its model in provider/name form', () => {
    expect(official().model).toBe('openai/text-embedding-3-small');
    expect(official({ model: 'openai/text-embedding-3-large' }).model).toBe('openai/text-embedding-3-large');
    expect(new OpenAiEmbedder({ apiKey: 'k', baseURL: fake.baseURL, provider: 'ollama', model: 'nomic-embed-text' }).model).toBe(
      'ollama/nomic-embed-text',
    );
  });

  it('sends model, input, float encoding and dimensions, and returns unit vectors in input order', async () => {
    const result = await official().embed(['alpha', 'a much longer text', ''], { dimensions: 8, purpose: 'document' });
    const request = fake.last();
    expect(request.path).toBe('/v1/embeddings');
    expect(request.headers.authorization).toBe('Bearer sk-test');
    expect(request.json).toEqual({
      model: 'text-embedding-3-small',
      input: ['alpha', 'a much longer text', ' '],
      encoding_format: 'float',
      dimensions: 8,
    });
    expect(result.model).toBe('openai/text-embedding-3-small');
    expect(result.vectors).toHaveLength(3);
    for (const v of result.vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 10);
    // fake vectors are [len, 1, 0...]: the order is recoverable after normalisation
    expect(result.vectors[0][0] / result.vectors[0][1]).toBeCloseTo(5);
    expect(result.vectors[1][0] / result.vectors[1][1]).toBeCloseTo(18);
    expect(result.usage.tokens).toBe(5);
  });

  it('batches large inputs and sums usage', async () => {
    const texts = Array.from({ length: 5 }, (_, i) => `text number ${i}`);
    const result = await official({ batchSize: 2 }).embed(texts, { dimensions: 4, purpose: 'query' });
    expect(fake.requests).toHaveLength(3);
    expect(result.vectors).toHaveLength(5);
    expect(result.usage.tokens).toBe(15);
  });

  it('can leave dimensions out for servers that reject it, and then checks the size it gets', async () => {
    const embedder = new OpenAiEmbedder({
      apiKey: 'k',
      baseURL: fake.baseURL,
      maxRetries: 0,
      sendDimensions: false,
      model: 'nomic-embed-text',
    });
    await expect(embedder.embed(['x'], { dimensions: 8, purpose: 'query' })).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
    expect(fake.last().json).toEqual({ model: 'nomic-embed-text', input: ['x'], encoding_format: 'float' });
  });

  it('exports a JSON schema for its options', () => {
    expect(openAiEmbedderOptionsSchema.required).toEqual(['apiKey']);
    expect(Object.keys(openAiEmbedderOptionsSchema.properties)).toEqual(
      expect.arrayContaining(['apiKey', 'baseURL', 'provider', 'model', 'sendDimensions', 'batchSize']),
    );
  });
});
