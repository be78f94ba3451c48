export interface RerankResult {
  /** Index into the documents passed in. */
  index: number;
  /** 0-1 relevance. */
  score: number;
}

export interface Reranker {
  readonly id: string;
  readonly model: string;
  rerank(
    query: string,
    documents: string[],
    options?: { topN?: number },
  ): Promise<{ results: RerankResult[]; usage: { searchUnits: number } }>;
}
export const RERANKER = Symbol.for('Reranker');
