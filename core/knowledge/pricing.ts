/** What embedding and rerank calls cost, for billing events (the local provider is free). */
export interface KnowledgePricing {
  embeddingUsd(model: string, tokens: number): number;
  rerankUsd(model: string, searchUnits: number): number;
}

/** Rerank list price (Cohere: 2 USD per 1000 searches of up to 100 documents), used for any paid reranker. */
export const RERANK_USD_PER_SEARCH_UNIT = 0.002;

/**
 * Pricing from per-token prompt prices (the model catalogue). Unknown embedding models of a provider other
 * than `local` are billed at the most expensive known embedding price rather than for free.
 */
export function tablePricing(promptPricePerToken: ReadonlyMap<string, number>): KnowledgePricing {
  const fallback = Math.max(0, ...promptPricePerToken.values());
  const isLocal = (model: string) => model.startsWith('local/');
  return {
    embeddingUsd: (model, tokens) => (isLocal(model) ? 0 : (promptPricePerToken.get(model) ?? fallback) * tokens),
    rerankUsd: (model, searchUnits) => (isLocal(model) ? 0 : RERANK_USD_PER_SEARCH_UNIT * searchUnits),
  };
}

export const isFreeModel = (model: string) => model.startsWith('local/');
