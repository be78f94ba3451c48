import type { Embedder, EmbeddingResult } from '../../core/ports/embedder';
import type { HeavyWork } from '../../core/ports/heavy-work';
import { LocalEmbedder } from './local-hash.embedder';

/** Below this many texts a query's vectors cost less than the trip to a worker thread. */
const INLINE_MAX_TEXTS = 4;

/**
 * The offline embedder with its batches computed in the heavy-work pool: hashing thousands of chunks is CPU
 * work that would otherwise hold the request loop. Short query batches stay inline.
 */
export class PooledLocalEmbedder implements Embedder {
  readonly id: string;
  readonly model: string;
  readonly lexical?: boolean;

  constructor(
    private readonly inline: Embedder,
    private readonly work: HeavyWork,
  ) {
    this.id = inline.id;
    this.model = inline.model;
    this.lexical = inline.lexical;
  }

  async embed(texts: string[], options: Parameters<Embedder['embed']>[1]): Promise<EmbeddingResult> {
    if (texts.length <= INLINE_MAX_TEXTS) return this.inline.embed(texts, options);
    const { vectors, tokens } = await this.work.run('embed.local', { texts, dimensions: options.dimensions }, options.work);
    return { vectors: vectors.map((v) => Array.from(v)), model: this.model, usage: { tokens } };
  }
}

/** The embedder the ingestion pipeline uses: the offline one through the pool, any remote one as it is. */
export const offloadedEmbedder = (embedder: Embedder, work: HeavyWork): Embedder =>
  embedder instanceof LocalEmbedder && work.id !== 'in-process' ? new PooledLocalEmbedder(embedder, work) : embedder;
