import type { WorkAttribution } from './work-attribution';

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
  /**
   * True when the vectors only encode word overlap (the offline hashed embedder), not meaning: retrieval then
   * weights their similarity low and ranks by full text (core/knowledge/ranking.ts). Absent: a semantic model.
   */
  readonly lexical?: boolean;
  /** `work`: whose work it is, for an embedder that computes in the heavy-work pool (its fair share). */
  embed(texts: string[], options: { dimensions: number; purpose: 'document' | 'query'; work?: WorkAttribution }): Promise<EmbeddingResult>;
}
export const EMBEDDER = Symbol.for('Embedder');
