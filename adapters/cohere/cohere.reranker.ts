import type { CohereClientV2 } from 'cohere-ai';

import type { Reranker, RerankResult } from '../../core/ports/reranker';
import { DomainError } from '../../core/shared/errors';
import { cohereClient, type CohereConnectionOptions, cohereModelId, cohereModelName, cohereOptionsSchema } from './cohere-connection';
import { mapCohereError } from './cohere-errors';

export interface CohereRerankerOptions extends CohereConnectionOptions {
  /** Rerank model, bare or in provider/name form. Default `rerank-v3.5`. */
  model?: string;
}

export const cohereRerankerOptionsSchema = cohereOptionsSchema({
  model: { type: 'string', minLength: 1, default: 'rerank-v3.5' },
});

/** Relevance scores (0-1) through Cohere's `POST /v2/rerank`. */
export class CohereReranker implements Reranker {
  readonly id = 'cohere';
  readonly model: string;
  private readonly client: CohereClientV2;

  constructor(options: CohereRerankerOptions) {
    this.client = cohereClient(options);
    this.model = cohereModelId(options.model ?? 'rerank-v3.5');
  }

  async rerank(
    query: string,
    documents: string[],
    options?: { topN?: number },
  ): Promise<{ results: RerankResult[]; usage: { searchUnits: number } }> {
    if (documents.length === 0) return { results: [], usage: { searchUnits: 0 } };
    let response;
    try {
      response = await this.client.rerank({
        model: cohereModelName(this.model),
        query,
        documents,
        ...(options?.topN !== undefined ? { topN: Math.min(options.topN, documents.length) } : {}),
      });
    } catch (error) {
      throw mapCohereError(error);
    }
    if (!Array.isArray(response?.results) || response.results.some((r) => !(r.index >= 0 && r.index < documents.length))) {
      throw new DomainError('UPSTREAM_FAILED', 'The rerank provider returned results that do not match the documents.', {
        provider: 'cohere',
      });
    }
    const results = response.results
      .map((r) => ({ index: r.index, score: Math.min(1, Math.max(0, r.relevanceScore)) }))
      .sort((a, b) => b.score - a.score || a.index - b.index);
    return { results, usage: { searchUnits: response.meta?.billedUnits?.searchUnits ?? 1 } };
  }
}
