/** An entity of a knowledge base's extracted graph that matched the chat query. */
export interface GraphEntityHit {
  name: string;
  type: string;
  description: string | null;
  knowledgeBaseId: string;
  /** Short "relation: other entity" lines. */
  relations: string[];
  score: number;
}

/**
 * Entity search over the knowledge graphs of the given knowledge bases (chat pipeline step "graph entity
 * search", spec 4.4). The graph area provides the adapter; until it lands, `noGraphSearch` finds nothing.
 */
/** A chunk reached through the graph: the relationship found from the query's entities, and its path. */
export interface GraphChunkHit {
  knowledgeBaseId: string;
  documentId: string;
  chunkIndex: number;
  /** The sentence stating the relationship. */
  evidence: string;
  score: number;
  /** e.g. ["Ada Lovelace", "worked_with", "Charles Babbage"]; longer for two hops. */
  relationshipPath: string[];
}

export interface GraphQuery {
  organizationId: string;
  knowledgeBaseIds: string[];
  text: string;
  limit: number;
}

export interface GraphSearch {
  searchEntities(query: GraphQuery): Promise<GraphEntityHit[]>;
  /** Graph discovery for search and chat retrieval (spec 4.9): chunks within two hops of the query's entities. */
  discoverChunks(query: GraphQuery): Promise<GraphChunkHit[]>;
}
export const GRAPH_SEARCH = Symbol.for('GraphSearch');

export const noGraphSearch: GraphSearch = { searchEntities: async () => [], discoverChunks: async () => [] };
