/** The offline local provider: extractive chat, hashed embeddings and a lexical reranker. No keys, no network. */
import type { Reranker } from '../../core/ports/reranker';
import { type AdapterDefinition, defineAdapter } from '../kit/adapter-definition';
import type { ChatProviderDefinition, EmbeddingsProviderDefinition } from '../kit/port-shapes';

/** Offline embeddings default to 1024 dimensions (the spec's 3072 is the remote default; the local model gains nothing from more). */
export const LOCAL_EMBEDDING_DIMENSIONS = 1024;

export const localChatProvider: ChatProviderDefinition = {
  id: 'local',
  description: 'Offline extractive answers from the retrieved documents (local/... models)',
  selectedWhen: [],
  modelPrefixes: ['local/'],
  needs: 'the local provider (add local to CHAT_PROVIDERS)',
  async create() {
    const { LocalChatModel } = await import('./local-extractive.chat-model');
    return new LocalChatModel();
  },
};

export const localEmbeddings: EmbeddingsProviderDefinition = {
  id: 'local',
  description: 'Offline hashed embeddings (deterministic, no network)',
  selectedWhen: [],
  dimensions: LOCAL_EMBEDDING_DIMENSIONS,
  async create() {
    const { LocalEmbedder } = await import('./local-hash.embedder');
    return new LocalEmbedder();
  },
};

/**
 * Offline lexical rerank: never picked by default, since it lowers recall offline (bench/results/retrieval-eval.json:
 * hybrid + rerank recall@3 0.922 against 0.967 without; its idf comes from the ~50 candidates, not the knowledge
 * base). Blending its score with BM25, proximity or title match was measured too and at best ties hybrid, so it
 * stays off; RERANK_PROVIDER=local turns it on.
 */
export const localRerank: AdapterDefinition<Reranker | null> = defineAdapter<Reranker | null>({
  id: 'local',
  description: 'Offline lexical rerank (query-term coverage)',
  async create() {
    const { LocalReranker } = await import('./local-lexical.reranker');
    return new LocalReranker();
  },
});
