import type { PinnedEntity } from './graph-store';
import type { WorkAttribution } from './work-attribution';

export interface ExtractedEntity {
  name: string;
  type: string;
  aliases: string[];
  confidence: number;
  /** Chunks that mention it, with how many times. */
  mentions: { chunkIndex: number; count: number }[];
}

export interface ExtractedRelationship {
  /** Entity names as given in `entities` (name or alias). */
  source: string;
  target: string;
  type: string;
  weight: number;
  chunkIndex: number;
  /** The sentence stating it. */
  evidence?: string;
}

export interface GraphExtraction {
  entities: ExtractedEntity[];
  relationships: ExtractedRelationship[];
  /** Chunks whose extraction failed (the document's graph status is then `partial` or `failed`). */
  failedChunks: number[];
  /** Model usage when a model extracted (billed by the caller). */
  usage: { model: string; promptTokens: number; completionTokens: number } | null;
}

/**
 * Entities and relationships of one document's chunks. The offline extractor (core/graph) is deterministic
 * and needs no network; a model-backed one is used when a chat provider is configured.
 */
export interface GraphExtractor {
  readonly id: string;
  /** `work`: whose work it is, for an extractor that runs in the heavy-work pool (its fair share). */
  extract(
    input: { documentTitle: string; chunks: { index: number; content: string }[]; pinned: PinnedEntity[] },
    work?: WorkAttribution,
  ): Promise<GraphExtraction>;
}
export const GRAPH_EXTRACTOR = Symbol.for('GraphExtractor');
