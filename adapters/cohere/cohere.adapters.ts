/** Cohere for chat (`cohere/...` models), embeddings and rerank; each is picked when COHERE_API_KEY is set. */
import type { Reranker } from '../../core/ports/reranker';
import { type AdapterDefinition, defineAdapter, setting, type Settings } from '../kit/adapter-definition';
import type { ChatProviderDefinition, EmbeddingsProviderDefinition } from '../kit/port-shapes';

const settings = {
  COHERE_API_KEY: { type: 'string', description: 'Cohere key' },
  COHERE_BASE_URL: { type: 'string', format: 'uri', description: 'Another endpoint speaking the Cohere v2 API' },
  COHERE_MAX_RETRIES: { type: 'integer', minimum: 0, maximum: 10, default: 2, description: 'Retries of failed Cohere calls' },
};
const keyed = { settings, requires: ['COHERE_API_KEY'], selectedWhen: ['COHERE_API_KEY'] } as const;
const connection = (s: Settings) => ({
  apiKey: setting.requiredString(s, 'COHERE_API_KEY'),
  baseURL: setting.string(s, 'COHERE_BASE_URL'),
  maxRetries: setting.number(s, 'COHERE_MAX_RETRIES') ?? 2,
});

/** Cohere embed-v4 offers at most 1536 dimensions. */
export const COHERE_EMBEDDING = { model: 'embed-v4.0', dimensions: 1536 };

export const cohereChatProvider: ChatProviderDefinition = {
  id: 'cohere',
  description: 'Cohere chat (cohere/... models)',
  ...keyed,
  modelPrefixes: ['cohere/'],
  needs: 'a Cohere key (COHERE_API_KEY)',
  async create(s) {
    const { CohereChatModel } = await import('./cohere.chat-model');
    return new CohereChatModel(connection(s));
  },
};

export const cohereEmbeddings: EmbeddingsProviderDefinition = {
  id: 'cohere',
  description: `Cohere ${COHERE_EMBEDDING.model}`,
  ...keyed,
  dimensions: COHERE_EMBEDDING.dimensions,
  async create(s) {
    const { CohereEmbedder } = await import('./cohere.embedder');
    return new CohereEmbedder({ ...connection(s), model: COHERE_EMBEDDING.model });
  },
};

export const cohereRerank: AdapterDefinition<Reranker | null> = defineAdapter<Reranker | null>({
  id: 'cohere',
  description: 'Cohere rerank-v3.5',
  ...keyed,
  async create(s) {
    const { CohereReranker } = await import('./cohere.reranker');
    return new CohereReranker(connection(s));
  },
});
