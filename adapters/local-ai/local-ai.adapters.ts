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
 * Offline lexical rerank: never picked by default, since it adds nothing over the full-text score offline
 * (bench/results/retrieval-quality.json); RERANK_PROVIDER=local turns it on.
 */
export const localRerank: AdapterDefinition<Reranker | null> = defineAdapter<Reranker | null>({
  id: 'local',
  description: 'Offline lexical rerank (query-term coverage)',
  async create() {
    const { LocalReranker } = await import('./local-lexical.reranker');
    return new LocalReranker();
  },
});
