import { rerankerConformance } from '../../test/conformance/reranker.conformance';
import { FakeCohere } from '../../test/fakes/fake-cohere';
import { CohereReranker, cohereRerankerOptionsSchema } from './cohere.reranker';

const fake = new FakeCohere();
let url = '';
beforeAll(async () => {
  url = await fake.start();
});
afterAll(() => fake.close());
beforeEach(() => fake.reset());

rerankerConformance('Cohere (fake API)', () => ({
  reranker: new CohereReranker({ apiKey: 'co-test', baseURL: url, maxRetries: 0 }),
  calls: () => fake.requests.length,
}));

describe('CohereReranker specifics', () => {
  const documents = ['Our office is closed on holidays.', 'Reset your password in settings.', 'The password reset link expires.'];

  it('sends query, documents and top_n and returns sorted 0-1 scores with search units', async () => {
    const reranker = new CohereReranker({ apiKey: 'co-test', baseURL: url, maxRetries: 0 });
    expect(reranker.model).toBe('cohere/rerank-v3.5');
    const { results, usage } = await reranker.rerank('reset password', documents, { topN: 2 });
    expect(fake.last().path).toBe('/v2/rerank');
    expect(fake.last().json).toEqual({ model: 'rerank-v3.5', query: 'reset password', documents, top_n: 2 });
    expect(results.map((r) => r.index)).toEqual([1, 2]);
    expect(results[0].score).toBe(1);
    expect(usage).toEqual({ searchUnits: 1 });
  });

  it('rejects results that point outside the documents', async () => {
    fake.replyOnce({ json: { id: 'r', results: [{ index: 7, relevance_score: 0.9 }], meta: {} } });
    const reranker = new CohereReranker({ apiKey: 'k', baseURL: url, maxRetries: 0 });
    await expect(reranker.rerank('x', documents)).rejects.toMatchObject({ code: 'UPSTREAM_FAILED' });
  });

  it('exports a JSON schema for its options', () => {
    expect(cohereRerankerOptionsSchema.properties.model).toBeDefined();
  });
});
