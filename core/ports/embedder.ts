export interface EmbeddingUsage {
  /** Tokens billed by the provider (estimated by the local provider). */
  tokens: number;
}

export interface EmbeddingResult {
  vectors: number[][];
  model: string;
  usage: EmbeddingUsage;
}

/** Turns text into unit-length vectors of `dimensions` entries. */
export interface Embedder {
  readonly id: string;
  /** Model id in provider/name form, as listed in the model catalogue. */
  readonly model: string;
  embed(texts: string[], options: { dimensions: number; purpose: 'document' | 'query' }): Promise<EmbeddingResult>;
}
export const EMBEDDER = Symbol.for('Embedder');
