import type { CohereClientV2 } from 'cohere-ai';

import type { Embedder, EmbeddingResult } from '../../core/ports/embedder';
import { DomainError } from '../../core/shared/errors';
import { cohereClient, type CohereConnectionOptions, cohereModelId, cohereModelName, cohereOptionsSchema } from './cohere-connection';
import { mapCohereError } from './cohere-errors';

export interface CohereEmbedderOptions extends CohereConnectionOptions {
  /** Embedding model, bare or in provider/name form. Default `embed-v4.0`. */
  model?: string;
  /** Send `output_dimension` (embed-v4 models: 256, 512, 1024 or 1536). Default: true for embed-v4 models. */
  sendDimensions?: boolean;
}

export const cohereEmbedderOptionsSchema = cohereOptionsSchema({
  model: { type: 'string', minLength: 1, default: 'embed-v4.0' },
  sendDimensions: { type: 'boolean' },
});

/** The API takes at most 96 texts per call. */
const BATCH = 96;

function normalize(vector: number[]): number[] {
  let norm = 0;
  for (const x of vector) norm += x * x;
  if (!(norm > 0)) return vector;
  norm = Math.sqrt(norm);
  return vector.map((x) => x / norm);
}

/** Embeddings through Cohere's `POST /v2/embed` (float vectors, search_document / search_query input types). */
export class CohereEmbedder implements Embedder {
  readonly id = 'cohere';
  readonly model: string;
  private readonly client: CohereClientV2;
  private readonly sendDimensions: boolean;

  constructor(options: CohereEmbedderOptions) {
    this.client = cohereClient(options);
    this.model = cohereModelId(options.model ?? 'embed-v4.0');
    this.sendDimensions = options.sendDimensions ?? cohereModelName(this.model).startsWith('embed-v4');
  }

  async embed(texts: string[], options: { dimensions: number; purpose: 'document' | 'query' }): Promise<EmbeddingResult> {
    const vectors: number[][] = [];
    let tokens = 0;
    for (let start = 0; start < texts.length; start += BATCH) {
      const batch = texts.slice(start, start + BATCH).map((t) => (t.trim() ? t : ' '));
      let response;
      try {
        response = await this.client.embed({
          model: cohereModelName(this.model),
          texts: batch,
          inputType: options.purpose === 'query' ? 'search_query' : 'search_document',
          embeddingTypes: ['float'],
          truncate: 'END',
          ...(this.sendDimensions ? { outputDimension: options.dimensions } : {}),
        });
      } catch (error) {
        throw mapCohereError(error);
      }
      const floats = response?.embeddings?.float;
      if (
        !Array.isArray(floats) ||
        floats.length !== batch.length ||
        floats.some((v) => !Array.isArray(v) || v.length !== options.dimensions)
      ) {
        throw new DomainError(
          'UPSTREAM_FAILED',
          `The embedding provider returned vectors that do not match ${batch.length} x ${options.dimensions}.`,
          {
            provider: 'cohere',
            model: this.model,
          },
        );
      }
      for (const v of floats) vectors.push(normalize(v));
      tokens += response.meta?.billedUnits?.inputTokens ?? 0;
    }
    return { vectors, model: this.model, usage: { tokens } };
  }
}
