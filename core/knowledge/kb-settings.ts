import { DomainError } from '../shared/errors';
import type { ChunkingSettings, EmbeddingSettings, KnowledgeBaseSettings } from './knowledge-base';

/** Largest vector the index takes (halfvec HNSW in pgvector goes to 4000; Elasticsearch to 4096). */
export const MAX_EMBEDDING_DIMENSIONS = 4000;
export const MIN_EMBEDDING_DIMENSIONS = 8;

const isObject = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/**
 * Fills `embedding` and `chunking` with the defaults and checks them. The embedding model is always the
 * configured embedder's (a knowledge base's vectors must be comparable with its query vectors); only the
 * dimensions may be chosen. Other keys are kept as given.
 */
export function normalizeSettings(
  input: unknown,
  defaults: { embedding: EmbeddingSettings; chunking: ChunkingSettings },
): KnowledgeBaseSettings {
  const raw = isObject(input) ? input : {};
  const embeddingIn = isObject(raw.embedding) ? raw.embedding : {};
  const chunkingIn = isObject(raw.chunking) ? raw.chunking : {};
  if (embeddingIn.model !== undefined && embeddingIn.model !== defaults.embedding.model) {
    throw new DomainError('VALIDATION', `settings.embedding.model must be the configured embedding model (${defaults.embedding.model})`);
  }
  const dimensions = embeddingIn.dimensions ?? defaults.embedding.dimensions;
  if (
    !Number.isInteger(dimensions) ||
    (dimensions as number) < MIN_EMBEDDING_DIMENSIONS ||
    (dimensions as number) > MAX_EMBEDDING_DIMENSIONS
  ) {
    throw new DomainError(
      'VALIDATION',
      `settings.embedding.dimensions must be an integer from ${MIN_EMBEDDING_DIMENSIONS} to ${MAX_EMBEDDING_DIMENSIONS}`,
    );
  }
  const size = chunkingIn.size ?? defaults.chunking.size;
  const overlap = chunkingIn.overlap ?? defaults.chunking.overlap;
  if (!Number.isInteger(size) || (size as number) < 100 || (size as number) > 8000) {
    throw new DomainError('VALIDATION', 'settings.chunking.size must be an integer from 100 to 8000');
  }
  if (!Number.isInteger(overlap) || (overlap as number) < 0 || (overlap as number) >= (size as number)) {
    throw new DomainError('VALIDATION', 'settings.chunking.overlap must be an integer from 0 to size - 1');
  }
  return {
    ...raw,
    embedding: { model: defaults.embedding.model, dimensions: dimensions as number },
    chunking: { ...chunkingIn, size: size as number, overlap: overlap as number },
  };
}
