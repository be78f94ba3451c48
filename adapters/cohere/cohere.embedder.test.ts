import { CohereClientV2 } from 'cohere-ai';

import { embedderConformance } from '../../test/conformance/embedder.conformance';
import { FakeCohere } from '../../test/fakes/fake-cohere';
import { CohereEmbedder, cohereEmbedderOptionsSchema } from './cohere.embedder';

const fake = new FakeCohere();
let url = '';
beforeAll(async () => {
  url = await fake.start();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

embedderConformance('Cohere (fake API)', () => ({
  embedder: new CohereEmbedder({ apiKey: 'co-test', baseURL: url, maxRetries: 0 }),
  dimensions: 256,
}));

describe('CohereEmbedder specifics', () => {
  it('names its model in provider/name form', () => {
    expect(new CohereEmbedder({ apiKey: 'k' }).model).toBe('cohere/embed-v4.0');
    expect(new CohereEmbedder({ apiKey: 'k', model: 'cohere/embed-multilingual-v3.0' }).model).toBe('cohere/embed-multilingual-v3.0');
  });

  it('sends texts, input type, float type and output dimension, and returns unit vectors in order', async () => {
    const embedder = new CohereEmbedder({ apiKey: 'co-test', baseURL: url, maxRetries: 0 });
    const result = await embedder.embed(['alpha', 'a much longer text'], { dimensions: 256, purpose: 'document' });
    const request = fake.last();
    expect(request.path).toBe('/v2/embed');
    expect(request.headers.authorization).toBe('Bearer co-test');
    expect(request.json).toEqual({
      model: 'embed-v4.0',
      texts: ['alpha', 'a much longer text'],
      input_type: 'search_document',
      embedding_types: ['float'],
      truncate: 'END',
      output_dimension: 256,
    });
    expect(result.model).toBe('cohere/embed-v4.0');
    expect(result.vectors.map((v) => v.length)).toEqual([256, 256]);
    for (const v of result.vectors) expect(Math.hypot(...v)).toBeCloseTo(1, 10);
    expect(result.vectors[1][0] / result.vectors[1][1]).toBeCloseTo(18);
    expect(result.usage.tokens).toBe(5);
  });

  it('uses search_query for queries, batches by 96, and accepts an injected client', async () => {
    const client = new CohereClientV2({ token: 'co-test', baseUrl: url, maxRetries: 0 });
    const embedder = new CohereEmbedder({ apiKey: 'unused', client });
    const texts = Array.from({ length: 100 }, (_, i) => `query ${i}`);
    const result = await embedder.embed(texts, { dimensions: 512, purpose: 'query' });
    expect(fake.requests).toHaveLength(2);
    expect(fake.requests.map((r) => r.json.texts.length)).toEqual([96, 4]);
    expect(fake.requests[0].json.input_type).toBe('search_query');
    expect(result.vectors).toHaveLength(100);
  });

  it('does not send output_dimension to v3 models, and rejects vectors of the wrong size', async () => {
    const embedder = new CohereEmbedder({ apiKey: 'k', baseURL: url, maxRetries: 0, model: 'embed-english-v3.0' });
    expect((await embedder.embed(['x'], { dimensions: 1024, purpose: 'query' })).vectors[0]).toHaveLength(1024);
    expect(fake.last().json.output_dimension).toBeUndefined();
    await expect(embedder.embed(['x'], { dimensions: 384, purpose: 'query' })).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
  });

  it('exports a JSON schema for its options', () => {
    expect(cohereEmbedderOptionsSchema).toMatchObject({ type: 'object', required: ['apiKey'], additionalProperties: false });
    expect(Object.keys(cohereEmbedderOptionsSchema.properties)).toEqual(
      expect.arrayContaining(['apiKey', 'baseURL', 'model', 'sendDimensions']),
    );
  });
});
