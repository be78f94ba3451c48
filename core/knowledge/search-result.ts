import type { RetrievedChunk } from './retrieve';

/** Spec 2.8 search result. */
export type DiscoveryMethod = 'semantic' | 'image' | 'graph';

export interface SearchResult {
  content: string;
  score: number;
  knowledgeBaseId: string;
  metadata: { documentId: string; documentTitle: string; chunkIndex: number; embeddingType: RetrievedChunk['embeddingType'] };
  discoveryMethods: DiscoveryMethod[];
  /** Set on results found through the knowledge graph. */
  relationshipPath?: string[];
}
