import type { Embedder, EmbeddingResult } from '../../core/ports/embedder';
import { DomainError } from '../../core/shared/errors';
import {
  catalogueModelId,
  connect,
  type OpenAiConnection,
  type OpenAiConnectionOptions,
  openAiOptionsSchema,
  providerModelName,
} from './openai-connection';
import { mapOpenAiError } from './openai-errors';

export interface OpenAiEmbedderOptions extends OpenAiConnectionOptions {
  /** Embedding model, bare or in provider/name form. Default `text-embedding-3-small`. */
  model?: string;
  /** Send `dimensions` (text-embedding-3 and most compatible servers accept it). Default true. */
  sendDimensions?: boolean;
  /** Texts per request (the API takes up to 2048). Default 256. */
  batchSize?: number;
}

export const openAiEmbedderOptionsSchema = openAiOptionsSchema({
  model: { type: 'string', minLength: 1, default: 'text-embedding-3-small' },
  sendDimensions: { type: 'boolean', default: true },
  batchSize: { type: 'integer', minimum: 1, maximum: 2048, default: 256 },
});

export function normalizeVector(vector: number[]): number[] {
  let norm = 0;
  for (const x of vector) norm += x * x;
  if (!(norm > 0)) return vector;
  norm = Math.sqrt(norm);
  return vector.map((x) => x / norm);
}

/** Embeddings through `POST /embeddings` of OpenAI or a compatible endpoint. */
export class OpenAiEmbedder implements Embedder {
  readonly id = 'openai';
  readonly model: string;
  private readonly connection: OpenAiConnection;
  private readonly name: string;
  private readonly sendDimensions: boolean;
  private readonly batchSize: number;

  constructor(options: OpenAiEmbedderOptions) {
    this.connection = connect(options);
    this.model = catalogueModelId(this.connection, options.model ?? 'text-embedding-3-small');
    this.name = providerModelName(this.connection, this.model);
    this.sendDimensions = options.sendDimensions ?? true;
    this.batchSize = options.batchSize ?? 256;
  }

  async embed(texts: string[], options: { dimensions: number; purpose: 'document' | 'query' }): Promise<EmbeddingResult> {
    const vectors: number[][] = [];
    let tokens = 0;
    for (let start = 0; start < texts.length; start += this.batchSize) {
      // the API rejects empty strings
      const input = texts.slice(start, start + this.batchSize).map((t) => (t.trim() ? t : ' '));
      let response;
      try {
        response = await this.connection.client.embeddings.create({
          model: this.name,
          input,
          encoding_format: 'float',
          ...(this.sendDimensions ? { dimensions: options.dimensions } : {}),
        });
      } catch (error) {
        throw mapOpenAiError(error, this.connection.provider);
      }
      const data = [...(response.data ?? [])].sort((a, b) => a.index - b.index);
      if (data.length !== input.length || data.some((d) => !Array.isArray(d.embedding) || d.embedding.length !== options.dimensions)) {
        throw new DomainError(
          'UPSTREAM_FAILED',
          `The embedding provider returned vectors that do not match ${input.length} x ${options.dimensions}.`,
          {
            provider: this.connection.provider,
            model: this.model,
          },
        );
      }
      for (const d of data) vectors.push(normalizeVector(d.embedding));
      tokens += response.usage?.total_tokens ?? response.usage?.prompt_tokens ?? 0;
    }
    return { vectors, model: this.model, usage: { tokens } };
  }
}
