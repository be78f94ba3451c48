/** A vector space: one chunk table per embedding size (its own file so the schema and the HNSW build share it). */
/** Largest size HNSW indexes with full precision; above it the table uses halfvec. */
export const MAX_FULL_PRECISION_DIMENSIONS = 2000;
export const MAX_DIMENSIONS = 4000;

export interface VectorSpace {
  dimensions: number;
  table: string;
  elementType: 'vector' | 'halfvec';
}

export function spaceFor(dimensions: number): VectorSpace {
  if (!Number.isInteger(dimensions) || dimensions < 1 || dimensions > MAX_DIMENSIONS) {
    throw new Error(`pgvector index: embeddings must have 1 to ${MAX_DIMENSIONS} dimensions, got ${dimensions}`);
  }
  return { dimensions, table: `kv_chunks_${dimensions}`, elementType: dimensions > MAX_FULL_PRECISION_DIMENSIONS ? 'halfvec' : 'vector' };
}
