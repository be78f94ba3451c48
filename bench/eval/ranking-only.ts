import type { RetrievalOptions } from '../../core/knowledge/retrieve';

/**
 * Retrieval options that compare rankings only: no relevance floors, no token budget, no reranker, one chunk per
 * document and ten per knowledge base, so recall@k counts documents. Shared by the evaluations and their tests.
 */
export const RANKING_ONLY: RetrievalOptions = {
  minVectorScore: 0,
  minCombinedScore: 0,
  topKPerKnowledgeBase: 10,
  maxChunksPerDocument: 1,
  tokenBudget: null,
  rerank: false,
};
